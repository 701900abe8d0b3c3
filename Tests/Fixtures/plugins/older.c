/* A descriptor built as if against an older 1.x header: it stops before
 * get_extension and ends right at a page the plugin made unreadable, so a
 * host that read one byte past struct_size would crash.
 */
#define _DEFAULT_SOURCE
#include <pushhost.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
static void on_message(void *self, const ph_message *m) { (void)self; (void)m; }
PH_EXPORT const ph_plugin *ph_plugin_entry(void) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *area = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (area == MAP_FAILED) return NULL;
    size_t size = offsetof(ph_plugin, get_extension);
    ph_plugin older = {
        .struct_size = (uint32_t)size, .abi_major = PH_ABI_MAJOR, .abi_minor = 0,
        .name = "older", .version = "0.9", .on_background = on_message,
    };
    char *at = area + page - size;
    memcpy(at, &older, size);
    if (mprotect(area + page, page, PROT_NONE) != 0) return NULL;
    return (const ph_plugin *)(void *)at;
}
