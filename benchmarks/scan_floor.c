/* The C floor of `assets scan` (benchmarks/bench_scan.py): walk a tree, open each .uasset/.umap, read its first
 * bytes (4096 unless given), close it. Nothing parsed, nothing printed per file: no reader of package headers,
 * in any language, can scan faster on the same machine.
 *
 *     cc -O2 -o scan_floor benchmarks/scan_floor.c && ./scan_floor TREE [BYTES]
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static char buffer[1 << 16];
static size_t bytes = 4096;
static long files = 0;

static int is_package(const char *name) {
    size_t length = strlen(name);
    return (length >= 7 && strcasecmp(name + length - 7, ".uasset") == 0) ||
           (length >= 5 && strcasecmp(name + length - 5, ".umap") == 0);
}

static void walk(const char *folder) {
    DIR *dir = opendir(folder);
    if (dir == NULL) {
        return;
    }
    struct dirent *entry;
    char path[4096];
    while ((entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] == '.' && (entry->d_name[1] == 0 || (entry->d_name[1] == '.' && entry->d_name[2] == 0))) {
            continue;
        }
        snprintf(path, sizeof path, "%s/%s", folder, entry->d_name);
        if (entry->d_type == DT_DIR) {
            walk(path);
        } else if (is_package(entry->d_name)) {
            int fd = open(path, O_RDONLY);
            if (fd >= 0) {
                if (read(fd, buffer, bytes) >= 0) {
                    files++;
                }
                close(fd);
            }
        }
    }
    closedir(dir);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: scan_floor TREE [BYTES]\n");
        return 2;
    }
    if (argc > 2) {
        bytes = (size_t)atol(argv[2]);
        if (bytes > sizeof buffer) {
            bytes = sizeof buffer;
        }
    }
    walk(argv[1]);
    printf("%ld\n", files);
    return 0;
}
