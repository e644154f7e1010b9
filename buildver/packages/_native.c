/* buildver.packages._native: the optional compiled core of `assets scan`'s hot loop.
 *
 * It lists a folder (sorted as Python sorts str names), reads the start of each package and checks the fixed
 * part of its summary for the common layouts: little-endian, LegacyFileVersion -6 to -9, versioned, every field
 * within the first read, every check of buildver/packages/reader.py's _read_versioned passing. Such a header is
 * reduced to a key: the bytes a package's ScanResult depends on (its file versions, the cooked flag, the custom
 * versions and the two engine versions as stored). Each distinct key gets a small number; the Python side reads
 * the first file of each key with the pure-Python reader and classifies it, and every later file of that key
 * shares the answer. Anything else (an odd layout, a corrupt or truncated header, an error, a special file, a
 * name that is not UTF-8) is handed back to the Python reader untouched, so the rules have one source of truth:
 * this file only decides what is common enough to share an answer.
 *
 * The checks mirror _read_versioned's; tests/packages/test_native.py runs both readers over the fixtures, the
 * malformed corpus and fuzzed headers and demands identical output.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <sys/types.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

#ifdef _WIN32
/* Windows: the CRT's POSIX-like calls, 64-bit sizes; no dirent.h, so Python lists folders and the core reads. */
#include <io.h>
#define NATIVE_HAS_DIRENT 0
#define open _open
#define read(fd, buffer, count) _read((fd), (buffer), (unsigned int)(count))
#define close _close
#define native_stat _stat64
#define native_fstat _fstat64
#ifndef S_ISREG
#define S_ISREG(mode) (((mode) & _S_IFMT) == _S_IFREG)
#endif
#else
#include <dirent.h>
#include <unistd.h>
#define NATIVE_HAS_DIRENT 1
#define native_stat stat
#define native_fstat fstat
#endif

#ifndef O_BINARY
#define O_BINARY 0
#endif
#ifndef O_NONBLOCK
#define O_NONBLOCK 0
#endif
#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* Codes returned for a file instead of a key number. */
#define CODE_PYTHON (-1)  /* a regular file the Python reader must read */
#define CODE_SPECIAL (-2) /* not listed as a regular file: Python decides (a link to a file is then read) */

#ifndef FIRST_READ
#define FIRST_READ (16 * 1024) /* covers most packages whole; a longer file costs an fstat and a 4-byte pread */
#endif
#define MAX_STRING_UNITS (1 << 20)
#define TAG 0x9E2A83C1u
#define FILTER_EDITOR_ONLY 0x80000000u
#define VALID_COMPRESSION_FLAGS 0x1FFu
#define MAX_KEY 4096

/* The gates this file knows (EUnrealEngineObjectUE4Version / UE5Version), as reader.py names them. */
#define UE4_OLDEST_LOADABLE 214
#define UE4_WORLD_LEVEL_INFO 224
#define UE4_ADDED_CHUNKID_TO_ASSETDATA_AND_UPACKAGE 278
#define UE4_CHANGED_CHUNKID_TO_BE_AN_ARRAY_OF_CHUNKIDS 326
#define UE4_ENGINE_VERSION_OBJECT 336
#define UE4_ADD_STRING_ASSET_REFERENCES_MAP 384
#define UE4_PACKAGE_SUMMARY_HAS_COMPATIBLE_ENGINE_VERSION 444
#define UE4_SERIALIZE_TEXT_IN_PACKAGES 459
#define UE4_PRELOAD_DEPENDENCIES_IN_COOKED_EXPORTS 507
#define UE4_ADDED_SEARCHABLE_NAMES 510
#define UE4_ADDED_PACKAGE_SUMMARY_LOCALIZATION_ID 516
#define UE4_ADDED_PACKAGE_OWNER 518
#define UE4_NON_OUTER_PACKAGE_IMPORT 520
#define UE5_NAMES_REFERENCED_FROM_EXPORT_DATA 1001
#define UE5_PAYLOAD_TOC 1002
#define UE5_ADD_SOFTOBJECTPATH_LIST 1008
#define UE5_DATA_RESOURCES 1009
#define UE5_METADATA_SERIALIZATION_OFFSET 1014
#define UE5_VERSE_CELLS 1015
#define UE5_PACKAGE_SAVED_HASH 1016
#define UE5_IMPORT_TYPE_HIERARCHIES 1018

/* The newest layout this file knows; the Python side lowers these to its own limits (configure). */
static int32_t min_legacy = -9;
static int32_t max_ue4 = 522;
static int32_t max_ue5 = 1018;

/* ---- the bounded table of keys: key bytes -> number ------------------------------------------------------ */

typedef struct {
    unsigned char *bytes;
    size_t length;
    uint64_t hash;
} KeyEntry;

#define KEY_LIMIT 4096   /* distinct keys kept; later ones go to the Python reader: memory stays flat */
#define KEY_SLOTS 8192   /* a power of two, twice the limit */
static KeyEntry key_entries[KEY_LIMIT];
static int32_t key_slots[KEY_SLOTS]; /* index + 1 into key_entries; 0 is empty */
static int32_t key_count = 0;

/* Eight bytes at a time: a key holds the custom versions (about 1 KiB in a UE5 package), hashed for every file. */
static uint64_t hash_bytes(const unsigned char *bytes, size_t length) {
    uint64_t hash = 0x9E3779B97F4A7C15ull ^ length;
    size_t i = 0;
    for (; i + 8 <= length; i += 8) {
        uint64_t word;
        memcpy(&word, bytes + i, 8);
        hash = (hash ^ word) * 0xBF58476D1CE4E5B9ull;
        hash ^= hash >> 31;
    }
    for (; i < length; i++) {
        hash = (hash ^ bytes[i]) * 0x94D049BB133111EBull;
    }
    hash ^= hash >> 29;
    return hash;
}

static int32_t key_number(const unsigned char *bytes, size_t length) {
    uint64_t hash = hash_bytes(bytes, length);
    size_t slot = (size_t)hash & (KEY_SLOTS - 1);
    for (;;) {
        int32_t index = key_slots[slot];
        if (index == 0) {
            break;
        }
        KeyEntry *entry = &key_entries[index - 1];
        if (entry->hash == hash && entry->length == length && memcmp(entry->bytes, bytes, length) == 0) {
            return index - 1;
        }
        slot = (slot + 1) & (KEY_SLOTS - 1);
    }
    if (key_count >= KEY_LIMIT) {
        return CODE_PYTHON;
    }
    unsigned char *copy = malloc(length ? length : 1);
    if (copy == NULL) {
        return CODE_PYTHON;
    }
    memcpy(copy, bytes, length);
    key_entries[key_count] = (KeyEntry){copy, length, hash};
    key_slots[slot] = ++key_count;
    return key_count - 1;
}

/* ---- the summary -------------------------------------------------------------------------------------- */

typedef struct {
    const unsigned char *data;
    size_t available; /* bytes read */
    int64_t size;     /* the whole file's */
    size_t pos;
    int failed; /* anything the Python reader must look at: never an answer of this file's own */
    unsigned char key[MAX_KEY];
    size_t key_length;
} Parse;

static int32_t get_i32(Parse *p) {
    if (p->failed || p->pos + 4 > p->available) {
        p->failed = 1;
        return 0;
    }
    const unsigned char *b = p->data + p->pos;
    p->pos += 4;
    return (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
}

static void skip(Parse *p, int64_t length) {
    if (p->failed || length < 0 || (int64_t)p->pos + length > (int64_t)p->available) {
        p->failed = 1;
        return;
    }
    p->pos += (size_t)length;
}

static void keep(Parse *p, size_t from, size_t to) {
    if (p->failed) {
        return;
    }
    if (p->key_length + (to - from) > MAX_KEY) {
        p->failed = 1;
        return;
    }
    memcpy(p->key + p->key_length, p->data + from, to - from);
    p->key_length += to - from;
}

static void keep_i32(Parse *p, int32_t value) {
    if (p->key_length + 4 > MAX_KEY) {
        p->failed = 1;
        return;
    }
    memcpy(p->key + p->key_length, &value, 4);
    p->key_length += 4;
}

/* An FString as reader.py's _Reader.fstring reads it; a length it would refuse, or bytes past the first read,
 * fail (the Python reader then says what is wrong, or reads on). */
static void fstring(Parse *p) {
    int32_t length = get_i32(p);
    if (p->failed || length == 0) {
        return;
    }
    if (length == INT32_MIN || length > MAX_STRING_UNITS || length < -MAX_STRING_UNITS) {
        p->failed = 1;
        return;
    }
    skip(p, length > 0 ? (int64_t)length : -2 * (int64_t)length);
}

/* An FEngineVersion: uint16 major, minor, patch, uint32 changelist, FString branch; kept as stored. */
static void engine_version(Parse *p) {
    size_t start = p->pos;
    skip(p, 10);
    fstring(p);
    keep(p, start, p->pos);
}

/* A count as reader.py's _Reader.count checks it: not negative, its elements within the file. */
static int32_t count(Parse *p, int element_size) {
    int32_t value = get_i32(p);
    if (p->failed || value < 0 || (int64_t)p->pos + (int64_t)value * element_size > p->size) {
        p->failed = 1;
        return 0;
    }
    return value;
}

/* 1 with p->key filled when the summary is of a common layout and passes every check; else 0. */
static int parse_summary(Parse *p, const unsigned char tail[4], int tail_known) {
    if (p->available < 4 || p->size < 32) {
        return 0;
    }
    const unsigned char *d = p->data;
    if (((uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 | (uint32_t)d[3] << 24) != TAG) {
        return 0; /* not a package, or byte-swapped: Python's */
    }
    p->pos = 4;
    int32_t legacy = get_i32(p);
    if (p->failed || legacy > -6 || legacy < min_legacy) {
        return 0;
    }
    skip(p, 4); /* LegacyUE3Version */
    int32_t ue4 = get_i32(p);
    int32_t ue5 = legacy <= -8 ? get_i32(p) : 0;
    int32_t licensee = get_i32(p);
    if (p->failed || (ue4 == 0 && ue5 == 0 && licensee == 0) || ue4 < UE4_OLDEST_LOADABLE || ue5 < 0 ||
        ue4 > max_ue4 || ue5 > max_ue5) {
        return 0;
    }
    keep_i32(p, legacy);
    keep_i32(p, ue4);
    keep_i32(p, ue5);
    keep_i32(p, licensee);

    int32_t total_header_size = 0;
    if (ue5 >= UE5_PACKAGE_SAVED_HASH) {
        skip(p, 20);
        total_header_size = get_i32(p);
    }
    size_t custom_start = p->pos;
    int32_t custom_count = count(p, 20);
    skip(p, 20 * (int64_t)custom_count);
    keep(p, custom_start, p->pos);
    if (ue5 < UE5_PACKAGE_SAVED_HASH) {
        total_header_size = get_i32(p);
    }
    fstring(p); /* PackageName */
    uint32_t flags = (uint32_t)get_i32(p);
    int cooked = (flags & FILTER_EDITOR_ONLY) != 0;
    int editor = !cooked;
    keep_i32(p, cooked);

    int32_t name_count = get_i32(p);
    int32_t name_offset = get_i32(p);
    if (ue5 >= UE5_ADD_SOFTOBJECTPATH_LIST) {
        skip(p, 8);
    }
    if (editor && ue4 >= UE4_ADDED_PACKAGE_SUMMARY_LOCALIZATION_ID) {
        fstring(p);
    }
    if (ue4 >= UE4_SERIALIZE_TEXT_IN_PACKAGES) {
        skip(p, 8);
    }
    int32_t export_count = get_i32(p);
    int32_t export_offset = get_i32(p);
    int32_t import_count = get_i32(p);
    int32_t import_offset = get_i32(p);
    int64_t fixed = 0;
    fixed += ue5 >= UE5_VERSE_CELLS ? 16 : 0;
    fixed += ue5 >= UE5_METADATA_SERIALIZATION_OFFSET ? 4 : 0;
    fixed += 4; /* DependsOffset */
    fixed += ue4 >= UE4_ADD_STRING_ASSET_REFERENCES_MAP ? 8 : 0;
    fixed += ue4 >= UE4_ADDED_SEARCHABLE_NAMES ? 4 : 0;
    fixed += 4; /* ThumbnailTableOffset */
    fixed += ue5 >= UE5_IMPORT_TYPE_HIERARCHIES ? 8 : 0;
    fixed += ue5 < UE5_PACKAGE_SAVED_HASH ? 16 : 0;
    fixed += editor && ue4 >= UE4_ADDED_PACKAGE_OWNER ? 16 : 0;
    fixed += editor && ue4 >= UE4_ADDED_PACKAGE_OWNER && ue4 < UE4_NON_OUTER_PACKAGE_IMPORT ? 16 : 0;
    skip(p, fixed);
    int32_t generations = get_i32(p);
    if (p->failed || generations < 0 || (int64_t)p->pos + 8 * (int64_t)generations > p->size) {
        return 0;
    }
    skip(p, 8 * (int64_t)generations);

    if (ue4 >= UE4_ENGINE_VERSION_OBJECT) {
        engine_version(p);
    } else {
        size_t start = p->pos;
        skip(p, 4);
        keep(p, start, p->pos);
    }
    if (ue4 >= UE4_PACKAGE_SUMMARY_HAS_COMPATIBLE_ENGINE_VERSION) {
        engine_version(p);
    }

    uint32_t compression_flags = (uint32_t)get_i32(p);
    int32_t compressed_chunks = get_i32(p);
    skip(p, 4); /* PackageSource */
    int32_t additional = get_i32(p);
    if (p->failed || (compression_flags & ~VALID_COMPRESSION_FLAGS) || compressed_chunks != 0 || additional < 0 ||
        (int64_t)p->pos + 4 * (int64_t)additional > p->size) {
        return 0;
    }
    for (int32_t i = 0; i < additional && !p->failed; i++) {
        fstring(p);
    }
    if (legacy > -7 && get_i32(p) != 0) { /* NumTextureAllocations */
        return 0;
    }
    skip(p, 12); /* AssetRegistryDataOffset, BulkDataStartOffset */
    if (ue4 >= UE4_WORLD_LEVEL_INFO) {
        skip(p, 4);
    }
    if (ue4 >= UE4_CHANGED_CHUNKID_TO_BE_AN_ARRAY_OF_CHUNKIDS) {
        int32_t chunk_ids = get_i32(p);
        if (p->failed || chunk_ids < 0 || (int64_t)p->pos + 4 * (int64_t)chunk_ids > p->size) {
            return 0;
        }
        skip(p, 4 * (int64_t)chunk_ids);
    } else if (ue4 >= UE4_ADDED_CHUNKID_TO_ASSETDATA_AND_UPACKAGE) {
        skip(p, 4);
    }
    int64_t end_fields = 0;
    end_fields += ue4 >= UE4_PRELOAD_DEPENDENCIES_IN_COOKED_EXPORTS ? 8 : 0;
    end_fields += ue5 >= UE5_NAMES_REFERENCED_FROM_EXPORT_DATA ? 4 : 0;
    end_fields += ue5 >= UE5_PAYLOAD_TOC ? 8 : 0;
    end_fields += ue5 >= UE5_DATA_RESOURCES ? 4 : 0;
    skip(p, end_fields);
    if (p->failed) {
        return 0;
    }

    /* The summary's own numbers must describe a file of this size (reference section 7). */
    int64_t end = (int64_t)p->pos, size = p->size;
    if (!(end <= total_header_size && total_header_size <= size)) {
        return 0;
    }
    if (name_count < 0 || (name_count && !(end <= name_offset && name_offset <= total_header_size))) {
        return 0;
    }
    if (name_count && licensee == 0 && name_offset != end) {
        return 0;
    }
    if (export_count < 0 || import_count < 0 || export_offset < 0 || export_offset > size || import_offset < 0 ||
        import_offset > size) {
        return 0;
    }
    if (!cooked) {
        if (!tail_known ||
            ((uint32_t)tail[0] | (uint32_t)tail[1] << 8 | (uint32_t)tail[2] << 16 | (uint32_t)tail[3] << 24) != TAG) {
            return 0;
        }
    }
    return 1;
}

/* ---- reading a file ---------------------------------------------------------------------------------- */

static unsigned char buffer[FIRST_READ];
static Parse parse;

/* The key number of the package at `path` (just listed as a regular file; relative to `folder_fd`, which may be
 * AT_FDCWD), or CODE_PYTHON. Only with the GIL held: the buffers are static, and the GIL keeps threads out. */
static int32_t read_key(int folder_fd, const char *path) {
#ifdef _WIN32
    (void)folder_fd;
    int fd = open(path, O_RDONLY | O_BINARY | O_NONBLOCK | O_CLOEXEC);
#else
    /* Relative to the folder's descriptor: the kernel looks up one name, not every folder of the path again. */
    int fd = openat(folder_fd, path, O_RDONLY | O_BINARY | O_NONBLOCK | O_CLOEXEC);
#endif
    if (fd < 0) {
        return CODE_PYTHON;
    }
    int64_t got = (int64_t)read(fd, buffer, FIRST_READ);
    if (got < 0) {
        close(fd);
        return CODE_PYTHON;
    }
    unsigned char tail[4];
    int tail_known = 0;
    int64_t size = got;
    if (got == FIRST_READ) {
        struct native_stat status;
        if (native_fstat(fd, &status) != 0 || !S_ISREG(status.st_mode) || (int64_t)status.st_size < got) {
            close(fd);
            return CODE_PYTHON;
        }
        size = (int64_t)status.st_size;
        if (size > got) {
#ifdef _WIN32
            tail_known = _lseeki64(fd, size - 4, SEEK_SET) == size - 4 && _read(fd, tail, 4) == 4;
#else
            tail_known = pread(fd, tail, 4, (off_t)(size - 4)) == 4;
#endif
        }
    }
    close(fd);
    if (size == got && got >= 4) {
        memcpy(tail, buffer + got - 4, 4);
        tail_known = 1;
    }
    parse.data = buffer;
    parse.available = (size_t)got;
    parse.size = size;
    parse.pos = 0;
    parse.failed = 0;
    parse.key_length = 0;
    if (!parse_summary(&parse, tail, tail_known)) {
        return CODE_PYTHON;
    }
    return key_number(parse.key, parse.key_length);
}

/* ---- the Python functions ---------------------------------------------------------------------------- */

static PyObject *native_read_key(PyObject *self, PyObject *arg) {
#ifdef _WIN32
    /* The CRT's _open reads a path in the ANSI code page, not the UTF-8 PyUnicode_FSConverter gives: a name that
     * is not ASCII could open another file. Python reads those (one source of truth, the same result). */
    if (!PyUnicode_Check(arg) || !PyUnicode_IS_ASCII(arg)) {
        return PyLong_FromLong(CODE_PYTHON);
    }
#endif
    PyObject *encoded = NULL;
    if (!PyUnicode_FSConverter(arg, &encoded)) {
        return NULL;
    }
#ifdef _WIN32
    int32_t code = read_key(0, PyBytes_AS_STRING(encoded));
#else
    int32_t code = read_key(AT_FDCWD, PyBytes_AS_STRING(encoded));
#endif
    Py_DECREF(encoded);
    return PyLong_FromLong(code);
}

static PyObject *native_configure(PyObject *self, PyObject *args) {
    int legacy, ue4, ue5;
    if (!PyArg_ParseTuple(args, "iii", &legacy, &ue4, &ue5)) {
        return NULL;
    }
    /* Never newer than this file knows, never newer than the Python reader knows. */
    if (legacy > min_legacy) {
        min_legacy = legacy;
    }
    if (ue4 < max_ue4) {
        max_ue4 = ue4;
    }
    if (ue5 < max_ue5) {
        max_ue5 = ue5;
    }
    return Py_BuildValue("iii", min_legacy, max_ue4, max_ue5);
}

#if NATIVE_HAS_DIRENT

typedef struct {
    char *name;
    size_t length;
    unsigned char type;
} Name;

static int compare_names(const void *a, const void *b) {
    const Name *x = a, *y = b;
    size_t shorter = x->length < y->length ? x->length : y->length;
    int order = memcmp(x->name, y->name, shorter);
    if (order != 0) {
        return order;
    }
    return (x->length > y->length) - (x->length < y->length);
}

static int is_package_name(const char *name, size_t length) {
    static const char *const suffixes[] = {".uasset", ".umap"};
    for (int s = 0; s < 2; s++) {
        size_t n = strlen(suffixes[s]);
        if (length >= n) {
            size_t i = 0;
            for (; i < n; i++) {
                char c = name[length - n + i];
                if (c >= 'A' && c <= 'Z') {
                    c = (char)(c - 'A' + 'a');
                }
                if (c != suffixes[s][i]) {
                    break;
                }
            }
            if (i == n) {
                return 1;
            }
        }
    }
    return 0;
}

/* Valid UTF-8 (as Python's strict decoder: no surrogates, no overlong forms). */
static int is_utf8(const unsigned char *s, size_t length) {
    size_t i = 0;
    while (i < length) {
        unsigned char c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t extra;
        uint32_t cp;
        if (c >= 0xC2 && c <= 0xDF) {
            extra = 1;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            extra = 2;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            extra = 3;
            cp = c & 0x07;
        } else {
            return 0;
        }
        if (i + extra >= length) {
            return 0;
        }
        for (size_t k = 1; k <= extra; k++) {
            if ((s[i + k] & 0xC0) != 0x80) {
                return 0;
            }
            cp = cp << 6 | (s[i + k] & 0x3F);
        }
        if ((extra == 2 && cp < 0x800) || (extra == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF)) {
            return 0;
        }
        i += extra + 1;
    }
    return 1;
}

static void free_names(Name *names, size_t count) {
    for (size_t i = 0; i < count; i++) {
        free(names[i].name);
    }
    free(names);
}

/* scan_folder(folder, read) -> ([(path, code), ...], [subfolder, ...]) or None.
 *
 * Files named like packages in sorted order, then the subfolders in sorted order, as scanning._walk lists them.
 * `code`: a key number, CODE_PYTHON (to be read by Python; every file when `read` is false) or CODE_SPECIAL (not
 * a regular file in the listing). None: Python lists this folder itself (an error, a name that is not UTF-8, a
 * file system that does not give the entry's type). */
static PyObject *native_scan_folder(PyObject *self, PyObject *args) {
    PyObject *folder_object;
    int read_files = 1;
    if (!PyArg_ParseTuple(args, "U|p", &folder_object, &read_files)) {
        return NULL;
    }
    PyObject *encoded = PyUnicode_EncodeFSDefault(folder_object);
    if (encoded == NULL) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    const char *folder = PyBytes_AS_STRING(encoded);
    size_t folder_length = (size_t)PyBytes_GET_SIZE(encoded);
    if (strlen(folder) != folder_length) { /* an embedded NUL */
        Py_DECREF(encoded);
        Py_RETURN_NONE;
    }
    DIR *dir = opendir(folder);
    if (dir == NULL) {
        Py_DECREF(encoded);
        Py_RETURN_NONE;
    }
    size_t count = 0, capacity = 256;
    Name *names = malloc(capacity * sizeof(Name));
    int usable = names != NULL;
    errno = 0;
    struct dirent *entry;
    while (usable && (entry = readdir(dir)) != NULL) {
        const char *name = entry->d_name;
        if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) {
            continue;
        }
        size_t length = strlen(name);
        if (entry->d_type == DT_UNKNOWN || !is_utf8((const unsigned char *)name, length)) {
            usable = 0;
            break;
        }
        if (entry->d_type != DT_DIR && !is_package_name(name, length)) {
            continue;
        }
        if (count == capacity) {
            Name *grown = realloc(names, 2 * capacity * sizeof(Name));
            if (grown == NULL) {
                usable = 0;
                break;
            }
            names = grown;
            capacity *= 2;
        }
        char *copy = malloc(length + 1);
        if (copy == NULL) {
            usable = 0;
            break;
        }
        memcpy(copy, name, length + 1);
        names[count++] = (Name){copy, length, entry->d_type};
        errno = 0;
    }
    if (usable && errno != 0) { /* readdir failed */
        usable = 0;
    }
    if (!usable) {
        closedir(dir);
        if (names != NULL) {
            free_names(names, count);
        }
        Py_DECREF(encoded);
        Py_RETURN_NONE;
    }
    int folder_fd = dirfd(dir);
    qsort(names, count, sizeof(Name), compare_names);

    /* os.scandir's entry.path: the folder as given, a separator unless it ends with one, the name. */
    int needs_separator = folder_length > 0 && folder[folder_length - 1] != '/';
    size_t path_capacity = folder_length + 2 + 256;
    char *path = malloc(path_capacity);
    PyObject *files = PyList_New(0), *subfolders = PyList_New(0), *result = NULL;
    if (path == NULL || files == NULL || subfolders == NULL) {
        if (path == NULL) {
            PyErr_NoMemory(); /* PyList_New sets its own error */
        }
        goto done;
    }
    memcpy(path, folder, folder_length);
    size_t prefix = folder_length;
    if (needs_separator) {
        path[prefix++] = '/';
    }
    for (size_t i = 0; i < count; i++) {
        size_t needed = prefix + names[i].length + 1;
        if (needed > path_capacity) {
            char *grown = realloc(path, needed);
            if (grown == NULL) {
                PyErr_NoMemory();
                goto done;
            }
            path = grown;
            path_capacity = needed;
        }
        memcpy(path + prefix, names[i].name, names[i].length + 1);
        /* The folder as given may hold names that are not UTF-8: decode as os.fsdecode does. */
        PyObject *text = PyUnicode_DecodeFSDefaultAndSize(path, (Py_ssize_t)(prefix + names[i].length));
        if (text == NULL) {
            goto done;
        }
        if (names[i].type == DT_DIR) {
            int failed = PyList_Append(subfolders, text);
            Py_DECREF(text);
            if (failed) {
                goto done;
            }
            continue;
        }
        /* A path Python cannot open (longer than PATH_MAX) must not be read through the folder's descriptor,
         * which reaches it: Python reads it, and says "file name too long", as the pure-Python reader does. */
        long code = names[i].type != DT_REG                       ? CODE_SPECIAL
                    : !read_files || prefix + names[i].length >= PATH_MAX ? CODE_PYTHON
                                                                  : read_key(folder_fd, names[i].name);
        PyObject *pair = Py_BuildValue("(Nl)", text, code);
        if (pair == NULL || PyList_Append(files, pair)) {
            Py_XDECREF(pair);
            goto done;
        }
        Py_DECREF(pair);
    }
    result = PyTuple_Pack(2, files, subfolders);
done:
    closedir(dir);
    free(path);
    free_names(names, count);
    Py_XDECREF(files);
    Py_XDECREF(subfolders);
    Py_DECREF(encoded);
    return result;
}

#else /* no dirent.h (Windows): Python lists every folder */

static PyObject *native_scan_folder(PyObject *self, PyObject *args) { Py_RETURN_NONE; }

#endif

static PyMethodDef native_methods[] = {
    {"scan_folder", native_scan_folder, METH_VARARGS,
     "scan_folder(folder, read=True): ([(path, code), ...], [subfolder, ...]), or None when Python must list it."},
    {"read_key", native_read_key, METH_O,
     "read_key(path): the key number of a common, valid package header, or -1 for the Python reader."},
    {"configure", native_configure, METH_VARARGS,
     "configure(min_legacy, max_ue4, max_ue5): the newest versions both readers know; returns those in force."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_native",
    .m_doc = "The optional compiled core of assets scan (see _native.c).",
    .m_size = -1,
    .m_methods = native_methods,
};

PyMODINIT_FUNC PyInit__native(void) {
    PyObject *module = PyModule_Create(&native_module);
    if (module == NULL) {
        return NULL;
    }
    if (PyModule_AddIntConstant(module, "CODE_PYTHON", CODE_PYTHON) ||
        PyModule_AddIntConstant(module, "CODE_SPECIAL", CODE_SPECIAL)) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
