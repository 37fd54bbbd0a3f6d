# bash completion for gpuprof, gpuprof-ingest, gpuprof-analyze, gpuprof-report, gpuprof-export and gpuprof-collect.
# `make install` puts it in $PREFIX/share/bash-completion/completions/ under each program's name; or
# `source scripts/gpuprof-completion.bash`. What it offers comes from the programs themselves, so it never
# goes stale: options from `--help`, analyses from `gpuprof-analyze --list`, the values of --format (and
# --engine) from the help's own lists, session databases and inputs from the file system.

# The options a program's --help lists ("-o, --output DB": -o and --output).
_gpuprof_options()
{
	"$1" --help 2>/dev/null | grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z0-9-]*' | tr -d ' ,' | sort -u
}

# The values an option takes, from its help line ("text (default), csv, json or md") or, when the help
# lists them in a section of their own ("Formats:", "Engines:"), from that section's first words.
_gpuprof_values()
{
	local prog=$1 opt=$2 section=$3
	if [[ -n $section ]]; then
		"$prog" --help 2>/dev/null | sed -n "/^$section:/,/^\$/p" | sed -n 's/^  \([a-z][a-z0-9_-]*\)  .*/\1/p'
		return
	fi
	"$prog" --help 2>/dev/null | grep -E "(^|[ ,])$opt[ =]" | head -1 | sed -E 's/.*[A-Z]{2,}  +//' |
		sed -E 's/\([^)]*\)//g; s/ or /, /g' | tr ',' '\n' | tr -d ' ' | grep -E '^[a-z]+$'
}

_gpuprof_program()
{
	local prog=$1 cur=$2 prev=$3 words
	shift 3
	case $prev in
	-f|--format)
		if [[ ${prog##*/} == gpuprof-ingest ]]; then
			words=$(_gpuprof_values "$prog" "" Formats)
		else
			words=$(_gpuprof_values "$prog" --format)
		fi
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		return;;
	-e|--engine)
		COMPREPLY=($(compgen -W "$(_gpuprof_values "$prog" "" Engines)" -- "$cur"))
		return;;
	-t|--to)
		if [[ ${prog##*/} == gpuprof-export ]]; then
			COMPREPLY=($(compgen -W "$(_gpuprof_values "$prog" "" Targets)" -- "$cur"))
		fi
		return;;
	--api)
		COMPREPLY=($(compgen -W "core all" -- "$cur"))
		return;;
	--pc-mode)
		COMPREPLY=($(compgen -W "continuous serialized" -- "$cur"))
		return;;
	-o|--output|--baseline|--expected|--sql)
		COMPREPLY=($(compgen -f -- "$cur"))
		compopt -o filenames 2>/dev/null
		return;;
	-n|--top|-s|--session|-j|--jobs|-i|--interval|-m|--match|-x|--exclude|-g|--group|-t|--table|--from|--to|--rank|\
	--opt)
		return;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_gpuprof_options "$prog")" -- "$cur"))
		return
	fi
	# gpuprof-analyze's first word is the analysis
	if [[ ${prog##*/} == gpuprof-analyze && $# -eq 0 ]]; then
		COMPREPLY=($(compgen -W "$("$prog" --list 2>/dev/null | awk '{print $1}')" -- "$cur"))
		return
	fi
	if [[ ${prog##*/} == gpuprof-collect ]]; then
		COMPREPLY=($(compgen -c -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
	compopt -o filenames 2>/dev/null
}

# The completion function of every program: the words before the cursor that are not options (nor an
# option's value) go to _gpuprof_program after prev, so it knows where the cursor stands.
_gpuprof()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} prog=${COMP_WORDS[0]} i=1 args=()
	COMPREPLY=()
	if [[ ${prog##*/} == gpuprof ]]; then
		if ((COMP_CWORD == 1)); then
			COMPREPLY=($(compgen -W "$("$prog" --help 2>/dev/null | sed -n '/^Commands:/,/^$/s/^  \([a-z]*\) .*/\1/p') --help --version" -- "$cur"))
			return
		fi
		prog=$(command -v "${prog%gpuprof}gpuprof-${COMP_WORDS[1]}" || command -v "gpuprof-${COMP_WORDS[1]}") || return
		i=2
	fi
	for ((; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-o|--output|-f|--format|-e|--engine|-n|--top|-s|--session|-j|--jobs|-i|--interval|-m|--match|-x|--exclude|\
		-g|--group|-t|--table|--from|--to|--rank|--baseline|--api|--pc-mode|--pc-period|--expected|--sql|--opt) ((i++));;
		-*) ;;
		*) args+=("${COMP_WORDS[i]}");;
		esac
	done
	_gpuprof_program "$prog" "$cur" "$prev" "${args[@]}"
}

complete -F _gpuprof gpuprof gpuprof-ingest gpuprof-analyze gpuprof-report gpuprof-export gpuprof-collect
