// PushHostMessage: a record's payload, whatever its shape (GCM, FCM v1,
// APNs, ntfy, bare), as the normalized message plugins read through a handle
// (`message_get`), and the edits interceptors make to it.
// It may import PushHostRecords, PushHostJSON and PushHostSystem, and no
// other pushhost target.
