# bash completion for avisoctl (aviso's client). Installed as
# /usr/share/bash-completion/completions/avisoctl or ~/.local/share/bash-completion/completions/avisoctl.

# The values of KEY at the top level of `avisoctl VERB --json` (an array of pretty-printed objects).
_avisoctl_values() {
    local verb=$1 key=$2
    avisoctl "${_avisoctl_socket[@]}" "$verb" --json 2>/dev/null |
        sed -n "s/^    \"$key\" : \"\(.*\)\",\{0,1\}\$/\1/p"
}

_avisoctl() {
    local cur prev words cword
    if declare -F _init_completion >/dev/null; then
        _init_completion || return
    else
        cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} words=("${COMP_WORDS[@]}") cword=$COMP_CWORD
    fi
    local verbs="add pending remove delivered remove-delivered fire status reload list stats categories respond events
        quiet items log unlog sync calendar help"
    local -a _avisoctl_socket=()
    local i verb="" position=0
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            --socket) _avisoctl_socket=(--socket "${words[i+1]}"); ((i++)) ;;
            --socket=*) _avisoctl_socket=("${words[i]}") ;;
            -*) ;;
            *) if [[ -z $verb ]]; then verb=${words[i]}; else ((position++)); fi ;;
        esac
    done
    if [[ -z $verb ]]; then
        case $prev in
            --socket) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        esac
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "--socket --version --help" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$verbs" -- "$cur"))
        fi
        return
    fi
    local flags=""
    case $verb in
        add) flags="--id --title --subtitle --body --in --repeat --at --on --tz --dst --thread --category --relevance
            --level --image --data --max-late --priority --summary" ;;
        pending|delivered|status|list|stats|categories|items) flags="--json" ;;
        remove|remove-delivered) flags="--prefix --all" ;;
        respond) flags="--text" ;;
        events) flags="--follow --json" ;;
        quiet) flags="--for --until --json" ;;
        log) flags="--at --count" ;;
        sync) flags="--prefix --json" ;;
        calendar) flags="--iterations --base-time --dst --json" ;;
    esac
    case $prev in
        --level) COMPREPLY=($(compgen -W "passive active time-sensitive critical" -- "$cur")); return ;;
        --dst) COMPREPLY=($(compgen -W "aviso systemd" -- "$cur")); return ;;
        --category) COMPREPLY=($(compgen -W "$(_avisoctl_values categories name)" -- "$cur")); return ;;
        --image) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --id|--title|--subtitle|--body|--in|--at|--on|--tz|--thread|--relevance|--data|--max-late|--priority|--text|\
        --for|--until|--count|--prefix|--iterations|--base-time) return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$flags --help" -- "$cur"))
        return
    fi
    case $verb in
        remove|fire) COMPREPLY=($(compgen -W "$(_avisoctl_values pending id)" -- "$cur")) ;;
        remove-delivered) COMPREPLY=($(compgen -W "$(_avisoctl_values delivered id)" -- "$cur")) ;;
        respond)
            if ((position == 0)); then
                COMPREPLY=($(compgen -W "$(_avisoctl_values delivered id)" -- "$cur"))
            elif ((position == 1)); then
                COMPREPLY=($(compgen -W "default $(avisoctl "${_avisoctl_socket[@]}" categories --json 2>/dev/null |
                    sed -n 's/^        "name" : "\(.*\)",\{0,1\}$/\1/p')" -- "$cur"))
            fi ;;
        log|unlog) ((position == 0)) && COMPREPLY=($(compgen -W "$(_avisoctl_values items name)" -- "$cur")) ;;
        quiet) ((position == 0)) && COMPREPLY=($(compgen -W "on off" -- "$cur")) ;;
        sync) COMPREPLY=($(compgen -f -- "$cur")) ;;
        help) COMPREPLY=($(compgen -W "$verbs" -- "$cur")) ;;
    esac
}
complete -F _avisoctl avisoctl
