"tp.all_gather"() : () -> ()
"tp.matmul"() : () -> ()
