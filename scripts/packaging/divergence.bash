# SPDX-License-Identifier: MIT
# bash completion for divergence(1): its commands and each command's flags
# (from the commands' usage texts), file names for paths, and the values of
# the flags that take a word from a short list.
_divergence()
{
    local cur prev cmd
    COMPREPLY=()
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    local commands="certify diff plugins sweep fuzz import replay bisect report query db explain oracle cases onnx-tests"
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$commands --help" -- "$cur"))
        return
    fi
    cmd=${COMP_WORDS[1]}

    case $prev in
    --plugin)
        case $cmd in
        report|query) return ;;  # a plugin's name, not a path
        esac
        COMPREPLY=($(compgen -f -X '!*.so' -- "$cur") $(compgen -d -- "$cur"))
        return ;;
    --db|-o|--output) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --cases|--corpus|--dir|--builds) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    --order) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --profile) COMPREPLY=($(compgen -W "exact ftz daz ftz+daz ulp: exact+no-refusals" -- "$cur")); return ;;
    --sandbox) COMPREPLY=($(compgen -W "auto strict off" -- "$cur")); return ;;
    --grant) COMPREPLY=($(compgen -W "pocl cuda" -- "$cur")); return ;;
    --cpu) COMPREPLY=($(compgen -W "native x86-64-v3 x86-64-v2 native,x86-64-v3 native,x86-64-v3,x86-64-v2" -- "$cur")); return ;;
    --format) COMPREPLY=($(compgen -W "html junit md json" -- "$cur")); return ;;
    --variant)
        COMPREPLY=($(compgen -W "onnx-div-1 onnx-div-6 onnx-div-7 onnx-div-13 onnx-div-14
            openvino-divide-1 sonnx-div" -- "$cur"))
        return ;;
    --dtype)
        COMPREPLY=($(compgen -W "f16 bf16 f32 f64 i4 i8 i16 i32 i64 u4 u8 u16 u32 u64" -- "$cur"))
        return ;;
    --seed|--random|--max-elements|--shape-tier|--timeout|--config|--shard|--memory-limit|\
    --cpu-limit|--env|--attr|--seconds|--jobs|--batch-pairs|--nondet-every|--max-failures|\
    --run|--runs|--since)
        return ;;
    esac

    local flags=""
    case $cmd in
    certify) flags="--plugin --variant --dtype --profile --seed --db --cases --random
        --max-elements --shape-tier --timeout --config --shard --no-progress --memory-limit
        --cpu-limit --resume --sandbox --env --grant --cpu --jobs --pin --no-pin --no-probes
        --no-thread-counts" ;;
    diff) flags="--plugin --variant --dtype --profile --seed --db --cases --random
        --max-elements --timeout --memory-limit --config --partial --sandbox --env --grant --jobs
        --pin --no-pin" ;;
    sweep) flags="--plugin --dtype --variant --attr --jobs --shard --db --resume --profile
        --random --seed --timeout --config --max-failures --batch-pairs --nondet-every --pin
        --shape-tier --no-progress --memory-limit --sandbox --env --grant --cpu" ;;
    fuzz) flags="--plugin --seconds --cases --jobs --seed --shard --db --corpus --max-elements
        --timeout --profile --stop-on-finding --no-progress --memory-limit --cpu-limit --resume
        --pin --no-pin --sandbox --env --grant --cpu" ;;
    import) flags="--plugin --db --config --max-elements --timeout --memory-limit --cpu-limit
        --no-progress --sandbox --env" ;;
    replay) flags="--db --run --all --plugin --write-case --config --grant --timeout --memory-limit --cpu" ;;
    bisect) flags="--db --plugin --builds --order --seen --all --since --config --grant --timeout
        --memory-limit" ;;
    report) flags="--db --run --runs --plugin --latest --latest-per-plugin --format -o
        --output" ;;
    query)
        flags="--db --json --plugin --since"
        [ "$COMP_CWORD" -ge 2 ] && case $cur in -*) ;; *)
            COMPREPLY=($(compgen -W "runs new bugs fixed history regressions diff" -- "$cur"))
            return ;;
        esac ;;
    db)
        if [ "$COMP_CWORD" -eq 2 ]; then
            COMPREPLY=($(compgen -W "merge check migrate" -- "$cur"))
        else
            COMPREPLY=($(compgen -f -- "$cur"))
        fi
        return ;;
    explain) flags="--variant --dtype --attr --profile" ;;
    oracle) flags="--variant --dtype --attr --exact" ;;
    cases) flags="--dir --matrix --check --max-elements" ;;
    onnx-tests) flags="--plugin --config --timeout --verbose" ;;
    plugins) COMPREPLY=($(compgen -f -X '!*.so' -- "$cur") $(compgen -d -- "$cur")); return ;;
    esac
    case $cur in
    -*) COMPREPLY=($(compgen -W "$flags --help" -- "$cur")) ;;
    *) COMPREPLY=($(compgen -f -- "$cur")) ;;
    esac
}
complete -F _divergence divergence
