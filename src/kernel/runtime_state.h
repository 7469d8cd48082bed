/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Names that a cgroup's path does not hold: a pod's name and namespace, and
 * a container's name. They come from the state that the container runtimes
 * keep on the host, read-only. Nothing is guessed: a missing, unreadable
 * or contradicting file (another pod's UID) leaves the names empty.
 */
#ifndef CGS_RUNTIME_STATE_H
#define CGS_RUNTIME_STATE_H

#include <stdbool.h>

struct cgname;

/*
 * Fill n's pod_name, pod_namespace and container_name from the state file
 * of n->container, for the cgroup at rel (its path in the hierarchy). The
 * file is looked for in each runtime's places, or only in its own if
 * n->runtime is known. Returns true if a file was found, agreed with n,
 * and says the runtime put that container's cgroup at rel. So a cgroup
 * that is merely named like a container, say in a tenant's delegated
 * subtree, gets no names. Files are looked for under $CGSCHED_HOST_ROOT
 * if it is set: cgsched may run in a container with the host's / mounted
 * there, and the tests use it for fake runtimes.
 */
bool runtime_names(struct cgname *n, const char *rel);

#endif
