import lb_no_such_module  # noqa: F401  (the layer is unavailable before this file is read)
