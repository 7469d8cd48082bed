// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Pod and container names from the runtimes' state files, laid out under a
 * temporary CGSCHED_HOST_ROOT as containerd, CRI-O and Docker write them; and
 * what must leave the names empty (another pod's UID, odd values, no file).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/runtime_state.h"
#include "lib/cgname.h"

#define ID "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d"
#define UID "3f0c1a2b-4d5e-6f70-8192-a3b4c5d6e7f8"
#define UID_ "3f0c1a2b_4d5e_6f70_8192_a3b4c5d6e7f8"
#define OTHER_UID "11111111-2222-3333-4444-555555555555"

static char root[64];

static void mkroot(void)
{
	strcpy(root, "/tmp/cgs-rt-XXXXXX");
	cr_assert(mkdtemp(root));
	setenv("CGSCHED_HOST_ROOT", root, 1);
}

static void rmroot(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
	unsetenv("CGSCHED_HOST_ROOT");
}

/* Write text to root/rel (rel's %s is ID), making its directories. */
static void put(const char *rel, const char *text)
{
	char path[512], dir[512], cmd[600];

	snprintf(path, sizeof(path), "%s", root);
	snprintf(path + strlen(path), sizeof(path) - strlen(path), rel, ID);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = 0;
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
	cr_assert_eq(system(cmd), 0);
	FILE *f = fopen(path, "w");
	cr_assert(f);
	fputs(text, f);
	fclose(f);
}

static void names(const char *path, struct cgname *c, bool found)
{
	cgname_decode(path, c);
	cr_assert_eq(runtime_names(c, path), found, "%s: runtime_names", path);
}

#define CTRD "/run/containerd/io.containerd.runtime.v2.task/k8s.io/%s/config.json"
#define CRIO "/run/containers/storage/overlay-containers/%s/userdata/config.json"
#define DOCKER "/var/lib/docker/containers/%s/config.v2.json"

Test(runtime_state, containerd_pod, .init = mkroot, .fini = rmroot)
{
	struct cgname c;
	char buf[CGNAME_SHORT_MAX];

#define CTRD_ANN "\"annotations\":{" \
		  "\"io.kubernetes.cri.container-type\":\"container\"," \
		  "\"io.kubernetes.cri.sandbox-name\":\"web-7d4f9\"," \
		  "\"io.kubernetes.cri.sandbox-namespace\":\"shop\"," \
		  "\"io.kubernetes.cri.sandbox-uid\":\"" UID "\"," \
		  "\"io.kubernetes.cri.container-name\":\"nginx\"}"
	/* The systemd driver's cgroupsPath: the slice, and the scope in it. */
	put(CTRD, "{\"ociVersion\":\"1.1.0\",\"linux\":{\"cgroupsPath\":\"kubepods-burstable-pod" UID_
		  ".slice:cri-containerd:" ID "\"}," CTRD_ANN "}");
	names("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	      ".slice/cri-containerd-" ID ".scope", &c, true);
	cr_expect_str_eq(c.pod_name, "web-7d4f9");
	cr_expect_str_eq(c.pod_namespace, "shop");
	cr_expect_str_eq(c.container_name, "nginx");
	cr_expect_str_eq(cgname_short(&c, buf, sizeof(buf)), "pod shop/web-7d4f9/nginx");
	/* The same container's names claimed by a cgroup elsewhere: not where containerd put it. */
	names("/kubepods/burstable/pod" UID "/" ID, &c, false);
	cr_expect_str_eq(c.pod_name, "");
	names("/user.slice/user-1000.slice/user@1000.service/kubepods-burstable-pod" UID_
	      ".slice/cri-containerd-" ID ".scope", &c, false);
	cr_expect_str_eq(c.container_name, "", "a tenant's look-alike borrows no names");
	/* The cgroupfs driver's form: runtime unknown from the path, every runtime's places tried. */
	put(CTRD, "{\"linux\":{\"cgroupsPath\":\"/kubepods/burstable/pod" UID "/" ID "\"}," CTRD_ANN "}");
	names("/kubepods/burstable/pod" UID "/" ID, &c, true);
	cr_expect_str_eq(c.pod_name, "web-7d4f9");
}

Test(runtime_state, crio_pod, .init = mkroot, .fini = rmroot)
{
	struct cgname c;
	char buf[CGNAME_SHORT_MAX];

	put(CRIO, "{\"linux\":{\"cgroupsPath\":\"kubepods-pod" UID_ ".slice:crio:" ID "\"},"
		  "\"annotations\":{\"io.kubernetes.pod.name\":\"db-0\","
		  "\"io.kubernetes.pod.namespace\":\"data\",\"io.kubernetes.pod.uid\":\"" UID "\","
		  "\"io.kubernetes.container.name\":\"postgres\"}}");
	names("/kubepods.slice/kubepods-pod" UID_ ".slice/crio-" ID ".scope", &c, true);
	cr_expect_str_eq(cgname_short(&c, buf, sizeof(buf)), "pod data/db-0/postgres");
	/* containerd's places are not CRI-O's: a crio path does not look there. */
	names("/kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" ID ".scope", &c, false);
	cr_expect_str_eq(c.pod_name, "");
}

Test(runtime_state, docker_names, .init = mkroot, .fini = rmroot)
{
	struct cgname c;
	char buf[CGNAME_SHORT_MAX];

	put(DOCKER, "{\"ID\":\"" ID "\",\"Name\":\"/web\",\"Config\":{\"Labels\":{}}}");
	names("/system.slice/docker-" ID ".scope", &c, true);
	cr_expect_str_eq(c.container_name, "web");
	cr_expect_str_eq(c.pod_name, "", "no pod in the path: no pod names");
	cr_expect_str_eq(cgname_short(&c, buf, sizeof(buf)), "docker web");
	names("/docker/" ID, &c, true);
	cr_expect_str_eq(c.container_name, "web");
	/* Anywhere else, not Docker's: a tenant's docker-<id>.scope borrows nothing. */
	names("/user.slice/user-1000.slice/docker-" ID ".scope", &c, false);
	cr_expect_str_eq(c.container_name, "");
	/* --cgroup-parent: no longer at the defaults (a path of its own is not read as Docker's, the slice's is). */
	put("/var/lib/docker/containers/%s/hostconfig.json", "{\"CgroupParent\":\"/ci/jobs\"}");
	names("/docker/" ID, &c, false);
	put("/var/lib/docker/containers/%s/hostconfig.json", "{\"CgroupParent\":\"ci-jobs.slice\"}");
	names("/ci.slice/ci-jobs.slice/docker-" ID ".scope", &c, true);
	names("/system.slice/docker-" ID ".scope", &c, false);
}

/* A file naming another pod, odd values, a missing file: names stay empty. */
Test(runtime_state, nothing_guessed, .init = mkroot, .fini = rmroot)
{
	struct cgname c;
	char buf[CGNAME_SHORT_MAX], big[400];

	names("/kubepods/pod" UID "/" ID, &c, false);
	cr_expect_str_eq(cgname_short(&c, buf, sizeof(buf)), "pod " UID "/9e8d7c6b5a4f");

	put(CTRD, "{\"linux\":{\"cgroupsPath\":\"/kubepods/pod" UID "/" ID "\"},\"annotations\":{\"io.kubernetes.cri.sandbox-name\":\"web\","
		  "\"io.kubernetes.cri.sandbox-namespace\":\"shop\","
		  "\"io.kubernetes.cri.sandbox-uid\":\"" OTHER_UID "\","
		  "\"io.kubernetes.cri.container-name\":\"nginx\"}}");
	names("/kubepods/pod" UID "/" ID, &c, false);
	cr_expect_str_eq(c.pod_name, "");
	cr_expect_str_eq(c.container_name, "");

	/* A NUL inside, a pod name over 253 bytes, a number: each refused alone. */
	memset(big, 'x', 300);
	big[300] = 0;
	char text[1024];
	snprintf(text, sizeof(text), "{\"linux\":{\"cgroupsPath\":\"/kubepods/pod" UID "/" ID "\"},"
		 "\"annotations\":{\"io.kubernetes.cri.sandbox-name\":\"%s\","
		 "\"io.kubernetes.cri.sandbox-namespace\":\"shop\","
		 "\"io.kubernetes.cri.container-name\":\"a\\u0000b\"}}", big);
	put(CTRD, text);
	names("/kubepods/pod" UID "/" ID, &c, true);
	cr_expect_str_eq(c.pod_name, "");
	cr_expect_str_eq(c.container_name, "");
	put(CTRD, "{\"linux\":{\"cgroupsPath\":\"/kubepods/pod" UID "/" ID "\"},\"annotations\":{\"io.kubernetes.cri.container-name\":7}}");
	names("/kubepods/pod" UID "/" ID, &c, true);
	cr_expect_str_eq(c.container_name, "");
	put(CTRD, "not json {");
	names("/kubepods/pod" UID "/" ID, &c, false);
	/* A path naming no container reads nothing. */
	names("/system.slice/cron.service", &c, false);
}
