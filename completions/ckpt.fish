# fish completion for the ckpt programs.

# Variable names of the first checkpoint already on the command line.
function __ckpt_varnames
    for w in (commandline -opc)[2..-1]
        if not string match -q -- '-*' $w; and test -f $w
            ckpt-read -q --names -- $w 2>/dev/null
            return
        end
    end
end

complete -c ckpt-read -l names -d 'One variable name per line'
complete -c ckpt-read -l values -d 'Print values'
complete -c ckpt-read -l head -x -d 'At most N values per variable'
complete -c ckpt-read -l stats -d 'Min, max, mean, std, L2, NaN/Inf/zero counts'
complete -c ckpt-read -l json -d 'One JSON document'
complete -c ckpt-read -l tsv -d 'Tab-separated values'
complete -c ckpt-read -l only -x -a '(__ckpt_varnames)' -d 'Only variables matching a glob'
complete -c ckpt-read -l exclude -x -a '(__ckpt_varnames)' -d 'Leave out variables matching a glob'
complete -c ckpt-read -l strip-prefix -x -d 'Remove a prefix from names'
complete -c ckpt-read -l add-prefix -x -d 'Add a prefix to names'
complete -c ckpt-read -s q -l quiet -d 'No header and totals'
complete -c ckpt-read -s v -l verbose -d 'Show storage layout'
complete -c ckpt-read -s h -l help -d 'Show help'
complete -c ckpt-read -s V -l version -d 'Show version'
