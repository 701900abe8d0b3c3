// PushHostRecords: what the intake hands the pipeline (records, where they
// came from and how far they are trusted, host events such as a new token or
// an action), the crash journal with the handlers' durations, and the state
// folder with the token.
// It may import PushHostJSON and PushHostSystem, and no other pushhost target.
