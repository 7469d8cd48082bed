/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Names the path does not hold, from the state the container runtimes keep
 * on the host, read-only: a pod's name and namespace, a container's name.
 * Nothing is guessed: a missing, unreadable or contradicting file (another
 * pod's UID) leaves the names empty.
 */
#ifndef CGS_RUNTIME_STATE_H
#define CGS_RUNTIME_STATE_H

#include <stdbool.h>

struct cgname;

/*
 * Fill n's pod_name, pod_namespace and container_name from the state file
 * of n->container (tried in each runtime's places, or only its own when
 * n->runtime is known), for the cgroup at rel (its path in the hierarchy).
 * True if a file was found and agreed with n, and says the runtime put that
 * container's cgroup at rel: a cgroup named like a container elsewhere (in a
 * tenant's delegated subtree) gets no names from its state. The
 * files are looked for under $CGSCHED_HOST_ROOT when it is set (cgsched run
 * in a container with the host's / mounted there; the tests' fake runtimes).
 */
bool runtime_names(struct cgname *n, const char *rel);

#endif
