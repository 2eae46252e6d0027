# bash completion for the ckpt programs                      -*- shell-script -*-
# Installed as .../bash-completion/completions/ckpt, with a link per program.

# Variable names of the first checkpoint already on the command line.
_ckpt_varnames()
{
	local w
	for w in "${COMP_WORDS[@]:1}"; do
		case $w in
		-*) ;;
		*) if [[ -f $w ]]; then
			ckpt-read -q --names -- "$w" 2>/dev/null
			return
		   fi ;;
		esac
	done
}

_ckpt()
{
	local cur prev opts
	_init_completion || return

	case $1 in
	*ckpt-read) opts="--names --values --head --stats --json --tsv --only
		--exclude --strip-prefix --add-prefix --progress --quiet --verbose
		--help --version -q -v -h -V" ;;
	*ckpt-train) opts="-o -f --force --iterations --workers --sync
		--local-steps --batch --lr --seed --data-seed --features --outputs
		--init --steps --gradients --apply --prefix --random-prefix
		--print-every --quiet --verbose --help --version -q -v -h -V" ;;
	*ckpt-average) opts="-o -f --force -w --weights --no-normalize --partial
		--method --base --lambda --density --gamma --seed --sign -t --dry-run
		--dtype --keep-storage --only --exclude --progress --quiet --verbose --help --version
		-q -v -h -V" ;;
	*ckpt-diff) opts="--atol --rtol --ulps --bitwise -n --stats --json --only
		--exclude --strip-prefix --add-prefix --progress --quiet --help --version
		-q -h -V" ;;
	*ckpt-flatten) opts="-o -f --force --dtype --big-endian --manifest --bundle
		--compress --size --only --exclude --strip-prefix --add-prefix
		--progress --quiet --verbose --help --version -q -v -h -V" ;;
	*ckpt-unflatten) opts="-o -f --force --template --manifest --dtype
		--big-endian --keep-storage --only --exclude --progress --quiet --verbose --help
		--version -q -v -h -V" ;;
	*ckpt-merge) opts="-o -f --force --strip-prefix --add-prefix --rename
		--only --exclude --cast --keep-storage --strict --add -n --dry-run --split --by --join
		--quiet --verbose --help --version -q -v -h -V" ;;
	*) opts="--help --version" ;;
	esac

	case $prev in
	--only|--exclude)
		local IFS=$'\n'
		COMPREPLY=($(compgen -W "$(_ckpt_varnames)" -- "$cur"))
		return ;;
	--sync)
		COMPREPLY=($(compgen -W "params grads" -- "$cur"))
		return ;;
	--method)
		COMPREPLY=($(compgen -W "linear task-arithmetic ties dare-ties dare-linear breadcrumbs breadcrumbs-ties slerp model-stock" -- "$cur"))
		return ;;
	--sign)
		COMPREPLY=($(compgen -W "sum count" -- "$cur"))
		return ;;
	--lambda|--density|--gamma|--seed|-t)
		return ;;
	--by)
		COMPREPLY=($(compgen -W "round-robin size" -- "$cur"))
		return ;;
	--rename|--split)
		return ;;
	--compress)
		COMPREPLY=($(compgen -W "gzip zstd xz bzip2 lz4 none" -- "$cur"))
		return ;;
	--template)
		_filedir '@(h5|hdf5|keras|json|safetensors|index|pt|pth|bin|ckpt)'
		return ;;
	--manifest)
		_filedir tsv
		return ;;
	--dtype)
		COMPREPLY=($(compgen -W "f16 bf16 f32 f64 f8e4m3 f8e5m2 i8 i16 i32 i64 u8 u16 u32 u64 bool" -- "$cur"))
		return ;;
	-w|--weights|--atol|--rtol|--ulps|-n)
		return ;;
	--head|--strip-prefix|--add-prefix|--iterations|--workers|--local-steps|\
	--batch|--lr|--seed|--data-seed|--features|--outputs|--steps|--prefix|\
	--print-every)
		return ;;
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	_filedir '@(h5|hdf5|keras|json|safetensors|index|pt|pth|ckpt|tar|tgz|gz|zst|xz|bz2|lz4|zip|bin)'
}
complete -F _ckpt ckpt-average ckpt-diff ckpt-flatten ckpt-merge ckpt-read ckpt-train ckpt-unflatten
