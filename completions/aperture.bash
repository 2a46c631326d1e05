# SPDX-License-Identifier: GPL-2.0
# bash completion for aperture: commands, options, event names, formats,
# sort keys, pids and file arguments.  Options come from the command's own
# --help, so they stay what the installed binary accepts.
# Installed by 'make install' to share/bash-completion/completions/aperture.

_aperture_opts()
{
	# long and short options from "aperture CMD --help", cached per command
	local cmd=$1 var="_aperture_opts_${1//-/_}"

	if [ -z "${!var}" ]; then
		printf -v "$var" '%s' "$("${_aperture_bin:-aperture}" "$cmd" --help 2>/dev/null |
			grep -oE -- '(^|[ ,])--?[A-Za-z][A-Za-z-]*' |
			sed 's/^[ ,]*//' | sort -u | tr '\n' ' ')"
	fi
	printf '%s' "${!var}"
}

# complete the last item of a comma-separated list
_aperture_list()
{
	local cur=$1 words=$2 prefix=""

	case $cur in
	*,*) prefix=${cur%,*},; cur=${cur##*,} ;;
	esac
	COMPREPLY=($(compgen -P "$prefix" -W "$words" -- "$cur"))
	[ ${#COMPREPLY[@]} -eq 1 ] && compopt -o nospace 2>/dev/null
}

_aperture()
{
	local cur prev cmd i
	local commands="record report top stat script diff annotate push list help"
	local events views eq=""

	COMPREPLY=()
	_aperture_bin=${COMP_WORDS[0]}
	# names from the binary's own table of event kinds
	events=$("$_aperture_bin" list --raw-dump 2>/dev/null)
	views=$("$_aperture_bin" list --raw-dump=views 2>/dev/null)
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	cmd=""
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done

	if [ -z "$cmd" ]; then
		COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
		return 0
	fi
	if [ "$cmd" = help ]; then
		COMPREPLY=($(compgen -W "${commands% help}" -- "$cur"))
		return 0
	fi
	# record -- CMD ARGS, stat -- CMD ARGS: a command, then its own
	# arguments
	if [ "$cmd" = record ] || [ "$cmd" = stat ]; then
		for ((i = 2; i < COMP_CWORD; i++)); do
			if [ "${COMP_WORDS[i]}" = "--" ]; then
				if [ $((i + 1)) -eq "$COMP_CWORD" ]; then
					COMPREPLY=($(compgen -c -- "$cur"))
				else
					COMPREPLY=($(compgen -f -- "$cur"))
				fi
				return 0
			fi
		done
	fi

	# --opt=VALUE
	case $cur in
	--*=*)
		prev=${cur%%=*}
		cur=${cur#*=}
		eq=1
		;;
	esac
	case $prev in
	-e | --events | --event)
		if [ "$cmd" = stat ]; then
			# stat's counters: perf's names, and the sensors
			# whose sums it prints
			_aperture_list "$cur" "task-clock cpu-clock context-switches cpu-migrations page-faults minor-faults major-faults cycles instructions branches branch-misses cache-references cache-misses syscall io sched lock"
		elif [ "$cmd" = record ] || [ "$cmd" = top ]; then
			# tracepoints once a category is typed (sched:...):
			# thousands of them, asked for only then
			case ${cur##*,} in
			*:*) events="$events $("$_aperture_bin" list --raw-dump=tracepoints 2>/dev/null)" ;;
			esac
			_aperture_list "$cur" "$events"
		elif [ "$cmd" = diff ]; then
			COMPREPLY=($(compgen -W "$views" -- "$cur"))
		else
			_aperture_list "$cur" "$views"
		fi
		return 0
		;;
	--format)
		case $cmd in
		report) COMPREPLY=($(compgen -W "table folded json pprof speedscope svg trace events" -- "$cur")) ;;
		script) COMPREPLY=($(compgen -W "text jsonl" -- "$cur")) ;;
		diff) COMPREPLY=($(compgen -W "table json folded svg" -- "$cur")) ;;
		esac
		return 0
		;;
	-s | --sort)
		[ "$cmd" = annotate ] && return 0	# its -s: a symbol
		_aperture_list "$cur" "comm pid tid cpu dso sym srcline children self"
		return 0
		;;
	--call-graph)
		if [ "$cmd" = report ]; then
			COMPREPLY=($(compgen -W "callee caller" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "cfi fp" -- "$cur"))
		fi
		return 0
		;;
	-u | --uid)
		COMPREPLY=($(compgen -u -- "$cur"))
		return 0
		;;
	-G | --cgroup)
		# record's cgroup; report's -G takes nothing
		[ "$cmd" = record ] &&
			COMPREPLY=($(compgen -d -- "$cur"))
		return 0
		;;
	-t)
		# record's and stat's threads
		{ [ "$cmd" = record ] || [ "$cmd" = stat ]; } &&
			_aperture_list "$cur" "$(cd /proc 2>/dev/null && echo [0-9]*/task/[0-9]* | sed 's|[0-9]*/task/||g')"
		return 0
		;;
	-p | --pid)
		_aperture_list "$cur" "$(cd /proc 2>/dev/null && echo [0-9]*)"
		return 0
		;;
	--to)
		# push's servers: the scheme, then the user's HOST:PORT
		COMPREPLY=($(compgen -W "pyroscope+http:// pyroscope+https:// parca+http:// parca+https://" -- "$cur"))
		compopt -o nospace 2>/dev/null
		return 0
		;;
	-i | --input | --output | --cuda-lib | --token-file | --ca-file | \
	--push-token-file | --push-ca-file)
		COMPREPLY=($(compgen -f -- "$cur"))
		return 0
		;;
	-o)
		# record's and stat's output file; top's -o takes a sort order
		{ [ "$cmd" = record ] || [ "$cmd" = stat ]; } && COMPREPLY=($(compgen -f -- "$cur"))
		return 0
		;;
	--mem-density)
		COMPREPLY=($(compgen -W "low default high" -- "$cur"))
		return 0
		;;
	--switch-output)
		# its SPEC is optional: only --switch-output=SPEC takes one
		if [ -n "$eq" ]; then
			COMPREPLY=($(compgen -W "signal 10s 1m 1h 100M" -- "$cur"))
			return 0
		fi
		;;
	--lock-class)
		COMPREPLY=($(compgen -W "mutex cond join other all" -- "$cur"))
		return 0
		;;
	-F | --freq | -d | --duration | -c | --count | --min-block | --limit | \
	--tid | --comm | -n | --iterations | -C | --cpu | --time | --dsos | \
	-S | --symbols | -I | --interval-print | -r | --repeat | -x | \
	--field-separator | --switch-max-files | --push | --push-spool-size | \
	--name | --label | --timeout | --retries)
		return 0		# a number or a name: nothing to offer
		;;
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_aperture_opts "$cmd")" -- "$cur"))
		return 0
	fi
	# report, script: -i FILE; diff: OLD NEW
	COMPREPLY=($(compgen -f -- "$cur"))
	return 0
}

complete -o filenames -F _aperture aperture
