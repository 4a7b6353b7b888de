# An entry "NAME|ARGUMENTS" of a list of verilated variants or of jobs (rtl/, tests/): its
# name, and its arguments as a list.
function(ssd_split_entry entry name_var args_var)
  string(FIND "${entry}" "|" bar)
  string(SUBSTRING "${entry}" 0 ${bar} name)
  math(EXPR from "${bar} + 1")
  string(SUBSTRING "${entry}" ${from} -1 args)
  separate_arguments(args)
  set(${name_var} "${name}" PARENT_SCOPE)
  set(${args_var} "${args}" PARENT_SCOPE)
endfunction()
