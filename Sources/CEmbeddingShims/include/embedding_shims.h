/* Nothing to declare: the shims only define symbols for the library's link. */
