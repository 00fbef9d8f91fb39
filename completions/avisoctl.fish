# fish completion for avisoctl (aviso's client). Installed as /usr/share/fish/vendor_completions.d/avisoctl.fish.

# The values of KEY at the top level of `avisoctl VERB --json`.
function __avisoctl_values
    avisoctl $argv[1] --json 2>/dev/null | string replace -rf '^    "'$argv[2]'" : "(.*)",?$' '$1'
end

set -l verbs add pending remove delivered remove-delivered fire status reload list stats categories respond events \
    quiet items log unlog sync calendar help
complete -c avisoctl -f
complete -c avisoctl -n "not __fish_seen_subcommand_from $verbs" -l socket -r -F -d 'Control socket'
complete -c avisoctl -n "not __fish_seen_subcommand_from $verbs" -l version -d 'Print the version'
for command in \
        'add:Schedule a notification' \
        'pending:List the armed requests' \
        'remove:Remove pending requests' \
        'delivered:List delivered notifications' \
        'remove-delivered:Forget delivered notifications' \
        'fire:Deliver a pending request now' \
        'status:Show the daemon\'s state' \
        'reload:Re-read the configuration' \
        'list:List the whole model' \
        'stats:Show counters' \
        'categories:List categories and actions' \
        'respond:Run an action of a notification' \
        'events:Show what happened to notifications' \
        'quiet:Show or change quiet hours' \
        'items:List the items and their logs' \
        'log:Log that an item was done' \
        'unlog:Remove an item\'s latest log entry' \
        'sync:Replace the requests under a prefix' \
        'calendar:Next elapses of OnCalendar specs' \
        'help:Show help'
    set -l parts (string split -m 1 : $command)
    complete -c avisoctl -n "not __fish_seen_subcommand_from $verbs" -a $parts[1] -d $parts[2]
end

complete -c avisoctl -n '__fish_seen_subcommand_from pending delivered status list stats categories items sync quiet calendar events' -l json -d 'JSON output'
complete -c avisoctl -n '__fish_seen_subcommand_from add' -l id -x -d 'Identifier'
complete -c avisoctl -n '__fish_seen_subcommand_from add' -l title -x -d 'Title'
complete -c avisoctl -n '__fish_seen_subcommand_from add' -l subtitle -x -d 'Subtitle'
complete -c avisoctl -n '__fish_seen_subcommand_from add' -l body -x -d 'Body'
complete -c avisoctl -n '__fish_seen_subcommand_from add' -l in -x -d 'After a time span'
complete -c avisoctl -n '__fish_seen_subcommand_from add' -l repeat -d 'Repeat every span'
complete -c avisoctl -n '__fish_seen_subcommand_from add log' -l at -x -d 'At a local time'
complete -c avisoctl -n '__fish_seen_subcommand_from add' -l on -x -d 'OnCalendar spec'
complete -c avisoctl -n '__fish_seen_subcommand_from add' -l tz -x -d 'Time zone'
complete -c avisoctl -n '__fish_seen_subcommand_from add calendar' -l dst -x -a 'aviso systemd' -d 'DST policy'
complete -c avisoctl -n '__fish_seen_subcommand_from add' -l thread -x -d 'Thread'
complete -c avisoctl -n '__fish_seen_subcommand_from add' -l category -x -a '(__avisoctl_values categories name)' -d 'Category'
complete -c avisoctl -n '__fish_seen_subcommand_from add' -l relevance -x -d 'Relevance, 0 to 1'
complete -c avisoctl -n '__fish_seen_subcommand_from add' -l level -x -a 'passive active time-sensitive critical' -d 'Interruption level'
complete -c avisoctl -n '__fish_seen_subcommand_from add' -l image -r -F -d 'Image file'
complete -c avisoctl -n '__fish_seen_subcommand_from add' -l data -x -d 'KEY=VALUE'
complete -c avisoctl -n '__fish_seen_subcommand_from add' -l max-late -x -d 'Skip when later than a span'
complete -c avisoctl -n '__fish_seen_subcommand_from add' -l priority -x -d 'Priority class'
complete -c avisoctl -n '__fish_seen_subcommand_from add' -l summary -d 'Wait for the next summary'
complete -c avisoctl -n '__fish_seen_subcommand_from remove remove-delivered sync' -l prefix -x -d 'Identifier prefix'
complete -c avisoctl -n '__fish_seen_subcommand_from remove remove-delivered' -l all -d 'All of them'
complete -c avisoctl -n '__fish_seen_subcommand_from remove fire' -a '(__avisoctl_values pending id)' -d 'Pending request'
complete -c avisoctl -n '__fish_seen_subcommand_from remove-delivered respond' -a '(__avisoctl_values delivered id)' -d 'Delivered notification'
complete -c avisoctl -n '__fish_seen_subcommand_from respond' -l text -x -d 'Typed text'
complete -c avisoctl -n '__fish_seen_subcommand_from events' -s f -l follow -d 'Stream new events'
complete -c avisoctl -n '__fish_seen_subcommand_from quiet' -a 'on off'
complete -c avisoctl -n '__fish_seen_subcommand_from quiet' -l for -x -d 'For a time span'
complete -c avisoctl -n '__fish_seen_subcommand_from quiet' -l until -x -d 'Until a local time'
complete -c avisoctl -n '__fish_seen_subcommand_from log unlog' -a '(__avisoctl_values items name)' -d 'Item'
complete -c avisoctl -n '__fish_seen_subcommand_from log' -l count -x -d 'How many'
complete -c avisoctl -n '__fish_seen_subcommand_from sync' -F
complete -c avisoctl -n '__fish_seen_subcommand_from calendar' -l iterations -x -d 'How many elapses'
complete -c avisoctl -n '__fish_seen_subcommand_from calendar' -l base-time -x -d 'From this time'
