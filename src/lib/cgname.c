// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdio.h>
#include <string.h>

#include "lib/cgname.h"
#include "lib/util.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool cgname_unescape(const char *in, size_t inlen, char *out, size_t len)
{
	size_t o = 0;

	if (!len)
		return false;
	for (size_t i = 0; i < inlen; i++) {
		char c = in[i];
		if (c == '\\' && i + 3 < inlen && in[i + 1] == 'x' && hexval(in[i + 2]) >= 0 &&
		    hexval(in[i + 3]) >= 0) {
			c = (char)(hexval(in[i + 2]) * 16 + hexval(in[i + 3]));
			i += 3;
		}
		if (o + 1 >= len) {
			out[o] = 0;
			return false;
		}
		out[o++] = c;
	}
	out[o] = 0;
	return true;
}

/* s[0..n) is exactly CGNAME_ID_MAX lowercase hex digits: a container id. */
static bool is_id(const char *s, size_t n)
{
	if (n != CGNAME_ID_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* A pod UID as the path writes it: 32 hex digits, or a UUID with '-' or '_'. Out untouched if not. */
static bool pod_uid(const char *s, size_t n, char *out, size_t len)
{
	char uid[40];

	if ((n != 32 && n != 36) || n >= len || n >= sizeof(uid))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (n == 36 && (i == 8 || i == 13 || i == 18 || i == 23)) {
			if (c != '-' && c != '_')
				return false;
			uid[i] = '-';
		} else if (hexval(c) < 0) {
			return false;
		} else {
			uid[i] = c;
		}
	}
	uid[n] = 0;
	memcpy(out, uid, n + 1);
	return true;
}

static bool starts(const char *s, size_t n, const char *prefix)
{
	size_t p = strlen(prefix);

	return n >= p && !memcmp(s, prefix, p);
}

static bool ends(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && !memcmp(s + n - k, suffix, k);
}

static bool is_unit(const char *s, size_t n)
{
	static const char *const kinds[] = { ".slice", ".service", ".scope", ".socket", ".mount", ".swap" };

	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if (ends(s, n, kinds[i]) && n > strlen(kinds[i]))
			return true;
	return false;
}

/* "<prefix><id>.scope" (systemd drivers) or "<prefix><id>" (cgroupfs). */
static bool container_in(const char *s, size_t n, const char *prefix, const char *runtime, struct cgname *c)
{
	size_t p = strlen(prefix);

	if (!starts(s, n, prefix))
		return false;
	if (ends(s, n, ".scope"))
		n -= strlen(".scope");
	if (!is_id(s + p, n - p))
		return false;
	snprintf(c->runtime, sizeof(c->runtime), "%s", runtime);
	memcpy(c->container, s + p, CGNAME_ID_MAX);
	c->container[CGNAME_ID_MAX] = 0;
	return true;
}

static void set_qos(struct cgname *c, const char *qos, size_t n)
{
	snprintf(c->qos, sizeof(c->qos), "%.*s", (int)n, qos);
}

/* Forget what the outer layers said: a nested layout (kind: Kubernetes inside a Docker container) names the inner. */
static void enter(struct cgname *c)
{
	c->runtime[0] = c->container[0] = c->pod_uid[0] = c->qos[0] = 0;
}

/*
 * The layouts are matched at any depth, not only at the top. kubelet's and
 * Docker's cgroup roots are settings (--cgroup-root, --cgroup-parent).
 * Nested set-ups (kind, k3s in a container) put them lower, and so do the
 * tests, under their own unique cgroup.
 */
void cgname_decode(const char *path, struct cgname *c)
{
	int depth = 0, k8s_fs = -1, docker_fs = -1; /* depth of a cgroupfs "kubepods" or "docker" */

	memset(c, 0, sizeof(*c));
	for (const char *s = path; s && *s;) {
		while (*s == '/')
			s++;
		if (!*s)
			break;
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		const char *k = s;
		size_t kn = n;

		if (is_unit(s, n))
			cgname_unescape(s, n, c->unit, sizeof(c->unit));
		/* kubelet with --cgroup-root=/kubelet (as kind runs it) names its slices kubelet-kubepods*. */
		if (starts(k, kn, "kubelet-kubepods"))
			k += 8, kn -= 8;
		/* Kubernetes, systemd driver: kubepods[-qos][-pod<uid>].slice */
		if (starts(k, kn, "kubepods") && ends(k, kn, ".slice")) {
			const char *q = k + strlen("kubepods"), *end = k + kn - strlen(".slice");
			if (q == end)
				enter(c);
			if (q < end && *q == '-') {
				q++;
				const char *dash = memchr(q, '-', end - q);
				size_t ql = dash ? (size_t)(dash - q) : (size_t)(end - q);
				if ((ql == 9 && !memcmp(q, "burstable", 9)) || (ql == 10 && !memcmp(q, "besteffort", 10))) {
					set_qos(c, q, ql);
					q += ql + (dash ? 1 : 0);
				}
				if (q < end && starts(q, end - q, "pod") &&
				    pod_uid(q + 3, end - q - 3, c->pod_uid, sizeof(c->pod_uid)) && !c->qos[0])
					set_qos(c, "guaranteed", 10);
			}
		}
		/* Kubernetes, cgroupfs driver: .../kubepods[/qos]/pod<uid>/<id> */
		else if (n == 8 && !memcmp(s, "kubepods", 8)) {
			enter(c);
			k8s_fs = depth;
		} else if (k8s_fs >= 0 && depth == k8s_fs + 1 && ((n == 9 && !memcmp(s, "burstable", 9)) ||
								  (n == 10 && !memcmp(s, "besteffort", 10)))) {
			set_qos(c, s, n);
		} else if (k8s_fs >= 0 && !c->pod_uid[0] && starts(s, n, "pod") &&
			   pod_uid(s + 3, n - 3, c->pod_uid, sizeof(c->pod_uid))) {
			if (!c->qos[0])
				set_qos(c, "guaranteed", 10);
		}
		/* Containers: the runtime's own prefix, or a bare id where the layout places one. */
		else if (container_in(s, n, "docker-", "docker", c) ||
			 container_in(s, n, "cri-containerd-", "containerd", c) ||
			 container_in(s, n, "crio-", "crio", c) ||
			 container_in(s, n, "libpod-", "podman", c)) {
		} else if (n == 6 && !memcmp(s, "docker", 6)) {
			docker_fs = depth;
		} else if (docker_fs >= 0 && depth == docker_fs + 1 && is_id(s, n)) {
			enter(c);
			container_in(s, n, "", "docker", c);
		} else if (c->pod_uid[0] && is_id(s, n)) {
			/* Below a pod, cgroupfs driver: the id alone (containerd); the runtime is not said. */
			c->runtime[0] = 0;
			memcpy(c->container, s, CGNAME_ID_MAX);
			c->container[CGNAME_ID_MAX] = 0;
		}
		depth++;
		s = e;
	}
}

const char *cgname_short(const struct cgname *c, char *buf, size_t len)
{
	const char *ctr = c->container_name[0] ? c->container_name : c->container;
	int clen = c->container_name[0] ? (int)sizeof(c->container_name) : CGNAME_ID_SHORT;

	if (c->pod_uid[0] && c->pod_name[0])
		snprintf(buf, len, "pod %s/%s%s%.*s", c->pod_namespace, c->pod_name, c->container[0] ? "/" : "",
			 clen, ctr);
	else if (c->pod_uid[0])
		snprintf(buf, len, "pod %s%s%.*s", c->pod_uid, c->container[0] ? "/" : "", clen, ctr);
	else if (c->container[0])
		snprintf(buf, len, "%s %.*s", c->runtime[0] ? c->runtime : "container", clen, ctr);
	else if (c->unit[0])
		snprintf(buf, len, "unit %s", c->unit);
	else
		return NULL;
	return buf;
}

/* A systemd slice's path: "a-b-c.slice" is /a.slice/a-b.slice/a-b-c.slice; "-.slice" the root (""). */
static bool slice_path(const char *slice, size_t n, char *out, size_t len)
{
	size_t at = 0;

	out[0] = 0;
	if (n < 6 || strncmp(slice + n - 6, ".slice", 6) || memchr(slice, '/', n))
		return false;
	if (n == 7 && slice[0] == '-')
		return true;
	for (size_t i = 0; i < n - 6; i++) {
		if (slice[i] != '-' && i != n - 7)
			continue;
		size_t end = slice[i] == '-' ? i : n - 6;
		if (!end || at + end + 8 > len)
			return false;
		at += snprintf(out + at, len - at, "/%.*s.slice", (int)end, slice);
	}
	return true;
}

bool cgname_runtime_path(const char *spec, char *out, size_t len)
{
	const char *c1 = strchr(spec, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	size_t n = strlen(spec);

	if (!n || !len)
		return false;
	if (spec[0] == '/' || (!c1 && !(n > 6 && !strcmp(spec + n - 6, ".slice") && !strchr(spec, '/'))))
		return snprintf(out, len, "%s%s", spec[0] == '/' ? "" : "/", spec) < (int)len;
	if (!c1)
		return slice_path(spec, n, out, len);
	if (!c2 || strchr(c2 + 1, ':') || c2 == c1 + 1 || !c2[1] || !slice_path(spec, c1 - spec, out, len))
		return false;
	size_t at = strlen(out);
	return snprintf(out + at, len - at, "/%.*s-%s.scope", (int)(c2 - c1 - 1), c1 + 1, c2 + 1) < (int)(len - at);
}

const char *who_text(const struct cgname *who, char *buf, size_t len)
{
	char s[CGNAME_SHORT_MAX];

	if (!who || !cgname_short(who, s, sizeof(s)))
		return NULL;
	return text_escape(s, buf, len);
}
