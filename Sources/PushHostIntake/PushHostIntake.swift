// PushHostIntake: where records come from: standard input, read and parsed
// in batches; the spool, its folder watched and each file moved on when its
// records are done; and the records plugins submit.
// It may import PushHostRecords, PushHostJSON and PushHostSystem, and no
// other pushhost target.
