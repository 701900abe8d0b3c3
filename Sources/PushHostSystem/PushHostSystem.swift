// PushHostSystem: what the host asks of the operating system, knowing
// nothing of messages: files read and written whole, pipes, poll, clocks,
// threads, signals, the handles plugins hold, the inbox other threads post
// to, and the service manager's socket.
// It imports no other pushhost target.
