/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Who a cgroup belongs to, read from its path alone: the systemd unit, the
 * container and its runtime, the Kubernetes pod and QoS class. The layouts
 * it reads are these.
 *
 *   systemd       /a.slice/b.service, /user.slice/.../session-2.scope (v1's cpu
 *                 hierarchy and v2 alike); names unescaped (\x2d is '-')
 *   Docker        .../docker-<id>.scope (systemd driver), /docker/<id> (cgroupfs)
 *   containerd    .../cri-containerd-<id>.scope, cgroupfs: the id alone below a pod
 *   CRI-O         .../crio-<id>.scope, cgroupfs: .../crio-<id>
 *   Kubernetes    /kubepods.slice/kubepods-<qos>.slice/kubepods-<qos>-pod<uid>.slice/...
 *                 (systemd; '_' for '-' in the uid), /kubepods/<qos>/pod<uid>/<id>
 *                 (cgroupfs); guaranteed pods sit directly under kubepods
 *
 * Nothing is guessed: what the path does not say stays empty. Pure: no
 * file is read. A pod's name and namespace and a container's name are not
 * in the path. kernel/runtime_state.c adds them from the runtimes' state
 * files, where the host keeps them.
 */
#ifndef CGS_CGNAME_H
#define CGS_CGNAME_H

#include <stdbool.h>
#include <stddef.h>

/* Container ids: 64 hex digits for Docker, containerd and CRI-O. */
#define CGNAME_ID_MAX 64
#define CGNAME_ID_SHORT 12
/* Room for cgname_short's longest: "pod ", a namespace, a pod name and a container name. */
#define CGNAME_SHORT_MAX 400

struct cgname {
	char unit[256];         /* the innermost systemd unit, unescaped; "" if none */
	char runtime[16];       /* "docker", "containerd", "crio"; "" if no container */
	char container[CGNAME_ID_MAX + 1]; /* the container id, whole; "" if none */
	char pod_uid[40];       /* the Kubernetes pod's UID, with dashes; "" if none */
	char qos[16];           /* "guaranteed", "burstable" or "besteffort"; "" if no pod */
	/* From the runtime's state, not the path; "" where the host does not say. */
	char pod_name[254];     /* a DNS subdomain: at most 253 */
	char pod_namespace[64]; /* a DNS label: at most 63 */
	char container_name[128];
};

/* Read what path (relative to the hierarchy, "/a/b") says. Never fails: unknown layouts leave it empty. */
void cgname_decode(const char *path, struct cgname *n);
/* Whether the path said anything: a unit, a container or a pod. */
static inline bool cgname_known(const struct cgname *n)
{
	return n->unit[0] || n->container[0] || n->pod_uid[0];
}
/* The most specific kind the path says: "pod", "container", "unit" (or "" for nothing). */
static inline const char *cgname_kind(const struct cgname *n)
{
	return n->pod_uid[0] ? "pod" : n->container[0] ? "container" : n->unit[0] ? "unit" : "";
}
/*
 * A short name for a table. For a pod, "pod <namespace>/<name>/<container
 * name>" where the runtime said, else "pod <uid>/<id12>". For a container,
 * "docker <name>" or "docker <id12>". For a unit, "unit <name>". NULL if
 * the path says nothing more than itself.
 */
const char *cgname_short(const struct cgname *n, char *buf, size_t len);
/* cgname_short escaped for text (lib/util.h text_escape) into buf; NULL when there is nothing. */
const char *who_text(const struct cgname *who, char *buf, size_t len);
/* systemd's unit-name escaping undone (\xNN), into out; false if it did not fit. */
bool cgname_unescape(const char *in, size_t inlen, char *out, size_t len);
/*
 * Turn a runtime's cgroup path into a path in the hierarchy ("/a/b"). An
 * absolute cgroupfs path stays as it is, and "x" becomes "/x". systemd's
 * "SLICE:PREFIX:NAME", as the kubelet's and runtimes' systemd driver write
 * it, becomes the slice's path with "PREFIX-NAME.scope" in it. A lone
 * "a-b.slice" becomes its path, /a.slice/a-b.slice ("-.slice" is the
 * root). Returns false if it does not fit in out or is no such form.
 */
bool cgname_runtime_path(const char *spec, char *out, size_t len);

#endif
