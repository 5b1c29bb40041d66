// The audience-rule language (Superscript's CEL dialect) lives in this module. It is built in
// its own issue; until then the module declares nothing, and nothing in the bridge calls it.
