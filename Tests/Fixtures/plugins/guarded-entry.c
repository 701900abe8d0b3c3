/* A plugin's entry that guards its descriptor, appended to the plugin's
 * source, whose own entry was renamed `unguarded_entry` (with
 * `#define ph_plugin_entry unguarded_entry` before the source and
 * `#undef ph_plugin_entry` after it): the descriptor is copied, exactly
 * `sizeof(ph_plugin)` bytes of the header it is built against, to the end of
 * a page whose next page is unreadable, so a host that read one byte past a
 * 1.0 descriptor would crash.
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include <pushhost.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

const ph_plugin *unguarded_entry(void);

PH_EXPORT const ph_plugin *ph_plugin_entry(void) {
    const ph_plugin *plugin = unguarded_entry();
    if (!plugin) return NULL;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *area = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (area == MAP_FAILED) return NULL;
    char *at = area + page - sizeof *plugin;
    memcpy(at, plugin, sizeof *plugin);
    if (mprotect(area + page, page, PROT_NONE) != 0) return NULL;
    return (const ph_plugin *)(void *)at;
}
