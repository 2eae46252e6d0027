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

complete -c ckpt-train -s o -r -d 'Output checkpoint'
complete -c ckpt-train -s f -l force -d 'Replace the output'
complete -c ckpt-train -l iterations -x -d 'Training iterations'
complete -c ckpt-train -l workers -x -d 'Data-parallel workers'
complete -c ckpt-train -l sync -x -a 'params grads' -d 'What the workers average'
complete -c ckpt-train -l local-steps -x -d 'Steps per worker per iteration'
complete -c ckpt-train -l batch -x -d 'Points per batch'
complete -c ckpt-train -l lr -x -d 'Learning rate'
complete -c ckpt-train -l seed -x -d 'Seed of the initial weights'
complete -c ckpt-train -l data-seed -x -d 'First batch number'
complete -c ckpt-train -l features -x -d 'Inputs per point'
complete -c ckpt-train -l outputs -x -d 'Outputs per point'
complete -c ckpt-train -l init -r -d 'Start from a checkpoint'
complete -c ckpt-train -l steps -x -d 'Steps from --init'
complete -c ckpt-train -l gradients -d 'Write the gradient instead'
complete -c ckpt-train -l apply -r -d 'Apply a gradient file'
complete -c ckpt-train -l prefix -x -d 'Name variables P/w and P/b'
complete -c ckpt-train -l random-prefix -d 'Random hexadecimal prefix'
complete -c ckpt-train -l print-every -x -d 'Report interval'
complete -c ckpt-train -s q -l quiet -d 'No reports'
complete -c ckpt-train -s v -l verbose -d 'Report every iteration'
complete -c ckpt-train -s h -l help -d 'Show help'
complete -c ckpt-train -s V -l version -d 'Show version'

complete -c ckpt-average -s o -r -d 'Output checkpoint'
complete -c ckpt-average -s f -l force -d 'Replace the output'
complete -c ckpt-average -s w -l weights -x -d 'Weights, one per input'
complete -c ckpt-average -l no-normalize -d 'Use the weights as given'
complete -c ckpt-average -l partial -d 'Average over the inputs that have each variable'
complete -c ckpt-average -l dtype -x -a 'f16 bf16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 bool' -d 'Store averaged variables as'
complete -c ckpt-average -l only -x -a '(__ckpt_varnames)' -d 'Average only matching variables'
complete -c ckpt-average -l exclude -x -a '(__ckpt_varnames)' -d 'Copy matching variables from the first input'
complete -c ckpt-average -l progress -d 'Show progress'
complete -c ckpt-average -s q -l quiet -d 'No warnings, no progress'
complete -c ckpt-average -s v -l verbose -d 'Say what is done'
complete -c ckpt-average -s h -l help -d 'Show help'
complete -c ckpt-average -s V -l version -d 'Show version'

complete -c ckpt-diff -l atol -x -d 'Absolute tolerance'
complete -c ckpt-diff -l rtol -x -d 'Relative tolerance'
complete -c ckpt-diff -l ulps -x -d 'Units in the last place'
complete -c ckpt-diff -l bitwise -d 'Compare stored bytes'
complete -c ckpt-diff -s n -x -d 'List differing elements'
complete -c ckpt-diff -l stats -d 'Equal variables, cosine, relative L2'
complete -c ckpt-diff -l json -d 'One JSON document'
complete -c ckpt-diff -l only -x -a '(__ckpt_varnames)' -d 'Compare only matching variables'
complete -c ckpt-diff -l exclude -x -a '(__ckpt_varnames)' -d 'Leave out matching variables'
complete -c ckpt-diff -l strip-prefix -x -d 'Remove a prefix from names'
complete -c ckpt-diff -l add-prefix -x -d 'Add a prefix to names'
complete -c ckpt-diff -s q -l quiet -d 'Print nothing'
complete -c ckpt-diff -s h -l help -d 'Show help'
complete -c ckpt-diff -s V -l version -d 'Show version'
