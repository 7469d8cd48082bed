// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Who a cgroup belongs to, from its path: every layout issue 14 lists, and odd names. */
#include <criterion/criterion.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/cgname.h"
#include "report/json_out.h"

#define ID "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d"
#define ID2 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID "3f0c1a2b-4d5e-6f70-8192-a3b4c5d6e7f8"
#define UID_ "3f0c1a2b_4d5e_6f70_8192_a3b4c5d6e7f8"

struct want {
	const char *path, *unit, *runtime, *container, *pod, *qos, *shortname;
};

static void check(const struct want *w)
{
	struct cgname c;
	char buf[512];

	cgname_decode(w->path, &c);
	cr_expect_str_eq(c.unit, w->unit, "%s: unit '%s'", w->path, c.unit);
	cr_expect_str_eq(c.runtime, w->runtime, "%s: runtime '%s'", w->path, c.runtime);
	cr_expect_str_eq(c.container, w->container, "%s: container '%s'", w->path, c.container);
	cr_expect_str_eq(c.pod_uid, w->pod, "%s: pod '%s'", w->path, c.pod_uid);
	cr_expect_str_eq(c.qos, w->qos, "%s: qos '%s'", w->path, c.qos);
	const char *s = cgname_short(&c, buf, sizeof(buf));
	if (w->shortname)
		cr_expect(s && !strcmp(s, w->shortname), "%s: short '%s', want '%s'", w->path, s ? s : "(null)",
			  w->shortname);
	else
		cr_expect_null(s, "%s: short '%s'", w->path, s);
}

Test(cgname, layouts)
{
	static const struct want cases[] = {
		/* systemd, v1's cpu hierarchy or v2 */
		{ "/system.slice/nginx.service", "nginx.service", "", "", "", "", "unit nginx.service" },
		{ "/user.slice/user-1000.slice/session-2.scope", "session-2.scope", "", "", "", "", "unit session-2.scope" },
		{ "/system.slice/system-getty.slice/getty@tty1.service", "getty@tty1.service", "", "", "", "", "unit getty@tty1.service" },
		{ "/system.slice/foo\\x2dbar.service", "foo-bar.service", "", "", "", "", "unit foo-bar.service" },
		{ "/system.slice", "system.slice", "", "", "", "", "unit system.slice" },
		/* Unicode: as it is, or as systemd escapes it (one \xNN per byte) */
		{ "/system.slice/caf\xc3\xa9.service", "caf\xc3\xa9.service", "", "", "", "", "unit caf\xc3\xa9.service" },
		{ "/system.slice/caf\\xc3\\xa9.service", "caf\xc3\xa9.service", "", "", "", "", "unit caf\xc3\xa9.service" },
		/* Docker */
		{ "/system.slice/docker-" ID ".scope", "docker-" ID ".scope", "docker", ID, "", "", "docker 9e8d7c6b5a4f" },
		{ "/docker/" ID, "", "docker", ID, "", "", "docker 9e8d7c6b5a4f" },
		/* containerd and CRI-O, outside Kubernetes */
		{ "/system.slice/cri-containerd-" ID ".scope", "cri-containerd-" ID ".scope", "containerd", ID, "", "", "containerd 9e8d7c6b5a4f" },
		{ "/machine.slice/crio-" ID ".scope", "crio-" ID ".scope", "crio", ID, "", "", "crio 9e8d7c6b5a4f" },
		{ "/machine.slice/libpod-" ID ".scope", "libpod-" ID ".scope", "podman", ID, "", "", "podman 9e8d7c6b5a4f" },
		/* Kubernetes, systemd driver */
		{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice/cri-containerd-" ID ".scope",
		  "cri-containerd-" ID ".scope", "containerd", ID, UID, "burstable", "pod " UID "/9e8d7c6b5a4f" },
		{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_ ".slice",
		  "kubepods-besteffort-pod" UID_ ".slice", "", "", UID, "besteffort", "pod " UID },
		{ "/kubepods.slice/kubepods-pod" UID_ ".slice/crio-" ID ".scope",
		  "crio-" ID ".scope", "crio", ID, UID, "guaranteed", "pod " UID "/9e8d7c6b5a4f" },
		{ "/kubepods.slice/kubepods-burstable.slice", "kubepods-burstable.slice", "", "", "", "burstable", "unit kubepods-burstable.slice" },
		/* Kubernetes, cgroupfs driver */
		{ "/kubepods/burstable/pod" UID "/" ID, "", "", ID, UID, "burstable", "pod " UID "/9e8d7c6b5a4f" },
		{ "/kubepods/pod" UID "/" ID, "", "", ID, UID, "guaranteed", "pod " UID "/9e8d7c6b5a4f" },
		{ "/kubepods/besteffort/pod" UID "/crio-" ID, "", "crio", ID, UID, "besteffort", "pod " UID "/9e8d7c6b5a4f" },
		{ "/kubepods/besteffort/pod0123456789abcdef0123456789abcdef", "", "", "", "0123456789abcdef0123456789abcdef", "besteffort", "pod 0123456789abcdef0123456789abcdef" },
		/* anything else: nothing guessed */
		{ "/", "", "", "", "", "", NULL },
		{ "/batch/worker-3", "", "", "", "", "", NULL },
		{ "/docker-notanid.scope", "docker-notanid.scope", "", "", "", "", "unit docker-notanid.scope" },
		{ "/pod" UID "/" ID, "", "", "", "", "", NULL },           /* a pod directory outside kubepods */
		{ "/kubepods/burstable/podnot-a-uid", "", "", "", "", "burstable", NULL },
		/* libFuzzer's find: a UUID bad past its first part once left a partial uid and no QoS */
		{ "/kubepods/x/pod3f0c1a2b-4d5e-6\xff\xff\xff" "-8192-a3b4c5d6e7f8", "", "", "", "", "", NULL },
		/* Layouts at any depth: cgroup roots are settings, kind nests them, tests put them below their own cgroup */
		{ "/x/docker/" ID, "", "docker", ID, "", "", "docker 9e8d7c6b5a4f" },
		{ "/cgs-test-7/kubepods/burstable/pod" UID "/" ID, "", "", ID, UID, "burstable", "pod " UID "/9e8d7c6b5a4f" },
		{ "/system.slice/docker-" ID ".scope/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/"
		  "kubelet-kubepods-besteffort-pod" UID_ ".slice/cri-containerd-" ID2 ".scope",
		  "cri-containerd-" ID2 ".scope", "containerd", ID2, UID, "besteffort", "pod " UID "/0123456789ab" },
		{ "/docker/" ID "/kubepods/pod" UID "/" ID2, "", "", ID2, UID, "guaranteed", "pod " UID "/0123456789ab" },
		{ "/docker/" ID "/x", "", "docker", ID, "", "", "docker 9e8d7c6b5a4f" },
		{ "/docker/x/" ID, "", "", "", "", "", NULL },             /* the id right below docker only */
		{ "/.slice", "", "", "", "", "", NULL },
		{ "", "", "", "", "", "", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check(&cases[i]);
}

/* Unescaping: \xNN only, any byte (control bytes too: outputs escape them), never past the buffer. */
Test(cgname, unescape)
{
	char out[16];

	cr_assert(cgname_unescape("a\\x2db", 6, out, sizeof(out)));
	cr_assert_str_eq(out, "a-b");
	cr_assert(cgname_unescape("\\x1b[31m\\xff", 12, out, sizeof(out)));
	cr_assert_str_eq(out, "\x1b[31m\xff");
	cr_assert(cgname_unescape("\\x2", 3, out, sizeof(out)), "a cut escape is kept as it is");
	cr_assert_str_eq(out, "\\x2");
	cr_assert(cgname_unescape("\\xzz", 4, out, sizeof(out)));
	cr_assert_str_eq(out, "\\xzz");
	cr_assert_not(cgname_unescape("0123456789abcdefXYZ", 19, out, sizeof(out)), "too long: false, cut");
	cr_assert_eq(strlen(out), sizeof(out) - 1);
}

/* A unit name longer than the field: cut, still terminated. */
Test(cgname, long_unit)
{
	char path[1024] = "/";
	struct cgname c;

	memset(path + 1, 'a', 600);
	strcpy(path + 601, ".service");
	cgname_decode(path, &c);
	cr_assert_eq(strlen(c.unit), sizeof(c.unit) - 1);
}

/* JSON of an odd name: control bytes escaped, a broken byte replaced, unicode kept; valid UTF-8 throughout. */
Test(cgname, json_of_odd_names)
{
	struct cgname c;

	cgname_decode("/system.slice/odd\\x1b\\xff-caf\\xc3\\xa9.service", &c);
	char *s;
	size_t len;
	FILE *f = open_memstream(&s, &len);
	struct jw w;
	jw_init(&w, f, false);
	json_who(&w, &c);
	fclose(f);
	cr_assert(strstr(s, "\"unit\":\"odd\\u001b\xef\xbf\xbd-caf\xc3\xa9.service\""), "%s", s);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		cr_assert(*p >= 0x20, "a raw control byte at %td", p - (const unsigned char *)s);
	free(s);
}

/* Where a runtime's state says a container's cgroup is (runtime_state.c matches it to the real path). */
Test(cgname, runtime_path)
{
	static const struct { const char *spec, *want; } ok[] = {
		{ "kubepods-burstable-pod3f0c_1a2b.slice:cri-containerd:abc",
		  "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod3f0c_1a2b.slice/cri-containerd-abc.scope" },
		{ "kubepods-pod7a.slice:crio:def", "/kubepods.slice/kubepods-pod7a.slice/crio-def.scope" },
		{ "/kubepods/besteffort/pod0b/abc", "/kubepods/besteffort/pod0b/abc" },
		{ "kubepods/pod7a/def", "/kubepods/pod7a/def" },
		{ "system.slice", "/system.slice" },
		{ "-.slice:docker:1", "/docker-1.scope" },
	};
	/* Two fields, four, no slice, an empty slice part, nothing. */
	static const char *const bad[] = { "a.slice:x", "a.slice:x:y:z", "notaslice:x:y", "-a.slice:x:y", "" };
	char out[512];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		cr_assert(cgname_runtime_path(ok[i].spec, out, sizeof(out)), "%s", ok[i].spec);
		cr_expect_str_eq(out, ok[i].want, "%s", ok[i].spec);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_not(cgname_runtime_path(bad[i], out, sizeof(out)), "'%s'", bad[i]);
	cr_expect_not(cgname_runtime_path("kubepods-burstable.slice:cri-containerd:abc", out, 20), "too long");
}
