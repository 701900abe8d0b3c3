// PushHostCheck: what `pushhost check` holds a report against: the expected
// lines, where a report line differs from one, and the findings as text or
// as a JUnit file.
// It may import PushHostJSON and PushHostSystem, and no other pushhost target.
