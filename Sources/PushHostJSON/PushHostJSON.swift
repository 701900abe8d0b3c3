// PushHostJSON: the validating, zero-copy JSON reader (a tape of tokens over
// the input's bytes, scanned 16 bytes a step by CJSONScan), and the writers
// of JSON strings and JSON lines.
// It may import PushHostSystem, and no other pushhost target.
