// PushHostPort: the one way a stage calls a plugin's handler (Handler), and
// how it learns that a call made elsewhere ended (Ticket, and the
// VerdictTaker and TurnTaker it is answered through); the order of calls
// across processes (CallScheduler); the created plugins of a run by role
// (PluginSet); an interceptor's turn and its chain (ChainLink). In the host a
// call is the plugin's own function; elsewhere it goes through RemotePlugin,
// which PushHostIsolation implements.
// It may import PushHostPlugins and the targets below it, and no other
// pushhost target.
