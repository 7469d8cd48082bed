// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>

#include "kernel/runtime_state.h"
#include "lib/cgname.h"
#include "lib/util.h"

/*
 * Where each runtime keeps a container's state, and which keys in it name
 * the pod and the container. containerd and CRI-O write the OCI runtime
 * spec with the CRI's annotations. Docker writes its own config. Its
 * labels carry the same names when the kubelet drove it (dockershim,
 * cri-dockerd), and its Name is the container's own.
 */
struct source {
	const char *runtime; /* as cgname says it */
	const char *fmt;     /* under the host root; %s: the container id */
	const char *obj[2];  /* the object holding the keys, a path of up to two members */
	const char *pod_name, *pod_ns, *pod_uid, *ctr_name;
	bool docker_name;    /* the top-level "Name" ("/web") names the container */
};

#define CRI_KEYS "io.kubernetes.cri.sandbox-name", "io.kubernetes.cri.sandbox-namespace", \
	"io.kubernetes.cri.sandbox-uid", "io.kubernetes.cri.container-name"
#define KUBE_KEYS "io.kubernetes.pod.name", "io.kubernetes.pod.namespace", \
	"io.kubernetes.pod.uid", "io.kubernetes.container.name"

static const struct source sources[] = {
	{ "containerd", "/run/containerd/io.containerd.runtime.v2.task/k8s.io/%s/config.json",
	  { "annotations" }, CRI_KEYS, false },
	/* k3s and RKE2 run their own containerd with its state here. */
	{ "containerd", "/run/k3s/containerd/io.containerd.runtime.v2.task/k8s.io/%s/config.json",
	  { "annotations" }, CRI_KEYS, false },
	/* CRI-O: the run root first, then the graph root (both are storage's defaults). */
	{ "crio", "/run/containers/storage/overlay-containers/%s/userdata/config.json",
	  { "annotations" }, KUBE_KEYS, false },
	{ "crio", "/var/lib/containers/storage/overlay-containers/%s/userdata/config.json",
	  { "annotations" }, KUBE_KEYS, false },
	{ "docker", "/var/lib/docker/containers/%s/config.v2.json",
	  { "Config", "Labels" }, KUBE_KEYS, true },
};

/* A state file is some kilobytes; anything far larger is not one. */
#define STATE_MAX (4u << 20)

static struct json_object *read_json(const char *path)
{
	struct json_object *j = NULL;
	struct stat st;
	char *buf = NULL;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > STATE_MAX || !(buf = malloc(st.st_size + 1)))
		goto out;
	n = read(fd, buf, st.st_size);
	if (n == st.st_size) {
		buf[n] = 0;
		j = json_tokener_parse(buf);
	}
out:
	close(fd);
	free(buf);
	return j;
}

/* Copy the string at key into out (len bytes); false if absent, not a string, empty, with a NUL, or too long. */
static bool take(struct json_object *o, const char *key, char *out, size_t len)
{
	struct json_object *v;
	const char *s;
	size_t n;

	if (!o || !key || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return false;
	s = json_object_get_string(v);
	n = (size_t)json_object_get_string_len(v);
	if (!n || n >= len || strlen(s) != n)
		return false;
	memcpy(out, s, n + 1);
	return true;
}

/* Whether the state file's own word on where the container's cgroup is names rel. */
static bool at_path(const char *spec, const char *rel)
{
	char want[4096];

	return spec && cgname_runtime_path(spec, want, sizeof(want)) && !strcmp(want, rel);
}

/*
 * Check that rel is where the runtime put this container. For containerd
 * and CRI-O, that is the OCI spec's linux.cgroupsPath. For Docker, it is
 * CgroupParent with the id; CgroupParent is in hostconfig.json beside the
 * state file, and "" means the default, /docker or system.slice. Anyone
 * can give a cgroup in a delegated subtree a name like
 * docker-<a real id>.scope, so the name alone does not earn the names.
 */
static bool placed(const struct source *src, struct json_object *j, const char *state, const char *id, const char *rel)
{
	struct json_object *v;
	char spec[4096];

	if (!rel)
		return false;
	if (!src->docker_name) {
		if (!json_object_object_get_ex(j, "linux", &v) || !json_object_is_type(v, json_type_object) ||
		    !json_object_object_get_ex(v, "cgroupsPath", &v) || !json_object_is_type(v, json_type_string))
			return false;
		return at_path(json_object_get_string(v), rel);
	}
	const char *slash = strrchr(state, '/'), *parent = "";
	struct json_object *h;
	bool ok = false;
	if (!slash || snprintf(spec, sizeof(spec), "%.*s/hostconfig.json", (int)(slash - state), state) >= (int)sizeof(spec))
		return false;
	h = read_json(spec);
	if (h && json_object_object_get_ex(h, "CgroupParent", &v) && json_object_is_type(v, json_type_string))
		parent = json_object_get_string(v);
	/* The cgroupfs driver: PARENT/ID. */
	if (snprintf(spec, sizeof(spec), "%s/%s", *parent ? parent : "/docker", id) < (int)sizeof(spec))
		ok = at_path(spec, rel);
	/* The systemd driver: docker-ID.scope in the slice PARENT (or in a path given whole). */
	if (!ok && parent[0] == '/')
		ok = snprintf(spec, sizeof(spec), "%s/docker-%s.scope", parent, id) < (int)sizeof(spec) && at_path(spec, rel);
	else if (!ok)
		ok = snprintf(spec, sizeof(spec), "%s:docker:%s", *parent ? parent : "system.slice", id) < (int)sizeof(spec) &&
		     at_path(spec, rel);
	json_object_put(h);
	return ok;
}

static bool from_source(const struct source *src, const char *root, struct cgname *n, const char *rel)
{
	char path[4096], uid[64], pod[sizeof(n->pod_name)], ns[sizeof(n->pod_namespace)];
	char ctr[sizeof(n->container_name) + 1];
	struct json_object *j, *o;
	bool ok = false;

	if (snprintf(path, sizeof(path), "%s", root) >= (int)sizeof(path))
		return false;
	/* The id is hex (cgname_decode checked it): it cannot leave the directory. */
	snprintf(path + strlen(path), sizeof(path) - strlen(path), src->fmt, n->container);
	if (!(j = read_json(path)))
		return false;
	o = j;
	for (int i = 0; i < 2 && src->obj[i] && o; i++)
		if (!json_object_object_get_ex(o, src->obj[i], &o) || !json_object_is_type(o, json_type_object))
			o = NULL;
	/* Another pod's UID: the path and the file disagree, so neither is trusted for names. */
	if (n->pod_uid[0] && take(o, src->pod_uid, uid, sizeof(uid)) && strcmp(uid, n->pod_uid))
		goto out;
	/* Not where the runtime put it: a cgroup named after it by someone else. */
	if (!placed(src, j, path, n->container, rel))
		goto out;
	ok = true;
	if (n->pod_uid[0] && take(o, src->pod_name, pod, sizeof(pod)) && take(o, src->pod_ns, ns, sizeof(ns))) {
		memcpy(n->pod_name, pod, sizeof(pod));
		memcpy(n->pod_namespace, ns, sizeof(ns));
	}
	/* take writes only what it accepts: a refused label leaves the name to Docker's own. */
	if (!take(o, src->ctr_name, n->container_name, sizeof(n->container_name)) && src->docker_name &&
	    take(j, "Name", ctr, sizeof(ctr)) && ctr[0] == '/' && ctr[1])
		memmove(n->container_name, ctr + 1, strlen(ctr)); /* fits: one byte shorter than ctr */
out:
	json_object_put(j);
	return ok;
}

bool runtime_names(struct cgname *n, const char *rel)
{
	const char *root = getenv("CGSCHED_HOST_ROOT");

	if (!n->container[0])
		return false;
	if (!root || !strcmp(root, "/"))
		root = "";
	for (size_t i = 0; i < ARRAY_SIZE(sources); i++) {
		if (n->runtime[0] && strcmp(n->runtime, sources[i].runtime))
			continue;
		if (from_source(&sources[i], root, n, rel))
			return true;
	}
	return false;
}
