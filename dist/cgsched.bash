# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# bash completion for cgsched. The commands and each command's options are
# asked of cgsched itself (--list-commands, CMD --list-options: the parser's
# own tables), so they cannot drift from what it accepts. Installed by
# `make install` into bash-completion's directory.

# The values an option takes, where more than a file name can be offered.
_cgsched_values() {
	case $1 in
	--sched-backend) echo "tp_btf tp_btf-pidhash raw_tp" ;;
	--throttle-backend) echo "fentry kprobe tracepoint" ;;
	--format) echo "text github" ;;
	--sort | -s) echo "cpu p50 p99 max wakeups vol invol thr path" ;;
	--group-by) echo "unit container pod path" ;;
	esac
}

_cgsched() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local prog=${COMP_WORDS[0]} cmd=top i opts values
	COMPREPLY=()

	# The command: the first word, unless it is an option (then top, the default).
	if [ "$COMP_CWORD" -eq 1 ] && [ "${cur#-}" = "$cur" ]; then
		mapfile -t COMPREPLY < <(compgen -W "$("$prog" --list-commands 2>/dev/null)" -- "$cur")
		return
	fi
	case ${COMP_WORDS[1]} in -*) ;; *) cmd=${COMP_WORDS[1]} ;; esac

	# After record's "--": the command it runs, completed as bash would.
	for ((i = 2; i < COMP_CWORD; i++)); do
		if [ "${COMP_WORDS[i]}" = -- ]; then
			if declare -F _command_offset >/dev/null; then
				_command_offset $((i + 1))
			else
				mapfile -t COMPREPLY < <(compgen -c -- "$cur")
			fi
			return
		fi
	done

	opts=$("$prog" "$cmd" --list-options 2>/dev/null)
	# The value of the option before: its choices where they are few, else a file name.
	if [ "${prev#-}" != "$prev" ] && printf '%s\n' "$opts" | grep -qxF -- "$prev="; then
		values=$(_cgsched_values "$prev")
		if [ -n "$values" ]; then
			mapfile -t COMPREPLY < <(compgen -W "$values" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		fi
		return
	fi
	if [ "${cur#-}" != "$cur" ]; then
		# "--name=" is offered as "--name", the value to follow as its own word.
		mapfile -t COMPREPLY < <(compgen -W "$(printf '%s\n' "$opts" | sed 's/=$//')" -- "$cur")
		return
	fi
	mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -F _cgsched cgsched
