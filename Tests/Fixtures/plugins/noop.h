/* Handlers that do nothing, to give a test plugin's descriptor roles. */
#define UNUSED __attribute__((unused))
UNUSED static ph_verdict on_data(void *self, const ph_message *m) { (void)self; (void)m; return PH_CONTINUE; }
UNUSED static void on_message(void *self, const ph_message *m) { (void)self; (void)m; }
UNUSED static void on_token(void *self, const char *t, const char *p) { (void)self; (void)t; (void)p; }
