/* buildver.projects._ini_native: the optional compiled core of the config-file (.ini) readers.
 *
 * It reads one key of one section the way each of Unreal's two readers does, line by line in C, and merges the
 * key's lines as that reader merges them, so that a file of any shape is read in a few passes over its characters
 * (issue 30's budget: 16 MiB in under 2 s and 200 MB). The rules are those of buildver/projects/unreal_ini.py and
 * ini_scan.py, which stay the source of truth and the reader where this core is absent (no compiler,
 * BUILDVER_PURE_PYTHON=1), for names the core does not take (ini_scan.fast_name) and for '@' struct keys (the core
 * hands those back: None). tests/projects/test_ini_native.py demands identical results from both.
 *
 * The engine (FConfigFile::CombineFromBuffer over ParseLineExtended, 5.1): a logical line ends at a line break or
 * '|' outside quotes and braces; '\' before a break joins the next line with a space; '{' not in quotes joins lines
 * up to its '}' (the braces dropped, '{a}' pairs on one line dropped at once); '//' outside quotes ignores the rest.
 * The merge: '+' adds unless equal (case-sensitive), '.' adds, '-' removes the last equal value, '!' empties,
 * a plain line replaces the last value or adds one; the single value read is the last.
 *
 * UnrealBuildTool (ConfigFile.ReadIntoSections, ConfigHierarchySection): lines end at CR, LF or CRLF; a line whose
 * last character but blanks is '\' has the next line appended (blank ones and ones ending in '\' too); a plain line
 * replaces every value, '+' adds, '-' removes every equal value in any case, '!' empties; the single value read is
 * the first.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

/* Growable buffers ------------------------------------------------------------------------------------------------ */

typedef struct {
    Py_UCS4 *data;
    Py_ssize_t size;
    Py_ssize_t capacity;
} Buffer;

static int buffer_reserve(Buffer *buffer, Py_ssize_t more) {
    if (buffer->size + more <= buffer->capacity) {
        return 0;
    }
    Py_ssize_t capacity = buffer->capacity ? buffer->capacity : 256;
    while (capacity < buffer->size + more) {
        capacity *= 2;
    }
    Py_UCS4 *grown = PyMem_Realloc(buffer->data, (size_t)capacity * sizeof(Py_UCS4));
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    buffer->data = grown;
    buffer->capacity = capacity;
    return 0;
}

static inline int buffer_add(Buffer *buffer, Py_UCS4 character) {
    if (buffer->size == buffer->capacity && buffer_reserve(buffer, 1) < 0) {
        return -1;
    }
    buffer->data[buffer->size++] = character;
    return 0;
}

/* The text ----------------------------------------------------------------------------------------------------------- */

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t size;
} Text;

#define AT(text, index) PyUnicode_READ((text)->kind, (text)->data, (index))

static inline int is_break(Py_UCS4 c) { return c == '\r' || c == '\n'; }

/* FChar::IsWhitespace in the C locale: what the engine trims (CPP_SPACE). */
static inline int is_cpp_space(Py_UCS4 c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static inline int is_blank(Py_UCS4 c) { return c == ' ' || c == '\t'; }

/* Names: the asked section and key are plain ASCII (ini_scan.fast_name), compared as Python's str.lower() compares
 * them: ASCII letters in either case, and the Kelvin sign, the one other character whose lower() is ASCII ('k'). */
typedef struct {
    char section[1024];
    Py_ssize_t section_size;
    char key[1024];
    Py_ssize_t key_size;
} Names;

static int names_read(Names *names, PyObject *section, PyObject *key) {
    PyObject *items[2] = {section, key};
    char *targets[2] = {names->section, names->key};
    Py_ssize_t *sizes[2] = {&names->section_size, &names->key_size};
    for (int which = 0; which < 2; which++) {
        if (!PyUnicode_Check(items[which]) || !PyUnicode_IS_ASCII(items[which]) ||
            PyUnicode_GET_LENGTH(items[which]) >= 1024) {
            PyErr_SetString(PyExc_ValueError, "the section and key must be ASCII names under 1024 characters");
            return -1;
        }
        Py_ssize_t size = PyUnicode_GET_LENGTH(items[which]);
        const Py_UCS1 *data = PyUnicode_1BYTE_DATA(items[which]);
        for (Py_ssize_t index = 0; index < size; index++) {
            char c = (char)data[index];
            targets[which][index] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
        }
        *sizes[which] = size;
    }
    return 0;
}

static int name_equals(const Py_UCS4 *name, Py_ssize_t size, const char *lowered, Py_ssize_t lowered_size) {
    if (size != lowered_size) {
        return 0;
    }
    for (Py_ssize_t index = 0; index < size; index++) {
        Py_UCS4 c = name[index];
        if (c >= 'A' && c <= 'Z') {
            c += 32;
        } else if (c == 0x212A) {
            c = 'k';
        }
        if (c != (Py_UCS4)(unsigned char)lowered[index]) {
            return 0;
        }
    }
    return 1;
}

/* A key line as a reader takes it: its prefix, its value (in the line buffer or the value buffer), and where its
 * logical line starts and its text ends. */
typedef struct {
    char action; /* 0 for a plain line */
    const Py_UCS4 *value;
    Py_ssize_t value_size;
    Py_ssize_t start;
    Py_ssize_t end;
} KeyLine;

typedef int (*LineHandler)(void *context, const KeyLine *line);

/* The engine: ParseLineExtended ------------------------------------------------------------------------------------ */

/* '{a}{b}...' at position, each pair without quotes, bars, backslashes, braces, breaks or slashes inside: the end of
 * the run of pairs, or -1. */
static Py_ssize_t brace_pairs(const Text *text, Py_ssize_t position) {
    Py_ssize_t end = -1;
    Py_ssize_t index = position;
    while (index < text->size && AT(text, index) == '{') {
        Py_ssize_t inner = index + 1;
        for (; inner < text->size; inner++) {
            Py_UCS4 c = AT(text, inner);
            if (c == '"' || c == '|' || c == '\\' || c == '{' || c == '}' || c == '/' || is_break(c)) {
                break;
            }
        }
        if (inner >= text->size || AT(text, inner) != '}') {
            break;
        }
        index = inner + 1;
        end = index;
    }
    return end;
}

/* One logical line from position: its text in out, where its text ends (*text_end); returns where the next line
 * starts. The states are ParseLineExtended's (quoted, ignoring after '//', brace depth), one character at a time;
 * ini_scan.engine_line is the same machine in patterns. */
static Py_ssize_t engine_line(const Text *text, Py_ssize_t position, Buffer *out, Py_ssize_t *text_end) {
    Py_ssize_t size = text->size;
    Py_ssize_t depth = 0;
    int quoted = 0;
    int ignore = 0;
    Py_ssize_t p = position;
    out->size = 0;
    while (p < size) {
        Py_UCS4 c = AT(text, p);
        if (ignore) {
            if (c == '"') {
                quoted = !quoted;
                p++;
            } else if (quoted) {
                if (depth == 0 && is_break(c)) {
                    break;
                }
                p++;
            } else if (c == '|' || (depth == 0 && is_break(c))) {
                break;
            } else if (c == '{') {
                Py_ssize_t pairs = brace_pairs(text, p);
                if (pairs >= 0) {
                    p = pairs;
                } else {
                    depth++;
                    p++;
                }
            } else if (c == '}' && depth > 0) {
                depth--;
                p++;
            } else if (c == '\\' && depth == 0) {
                p++;
                if (p < size && is_break(AT(text, p))) {
                    p++;
                    if (p < size && is_break(AT(text, p))) {
                        p++;
                    }
                }
            } else {
                p++;
            }
            continue;
        }
        if (quoted) {
            if (c == '\\') {
                if (buffer_add(out, c) < 0) {
                    return -1;
                }
                p++;
                if (p < size && (AT(text, p) == '"' || AT(text, p) == '\\')) {
                    if (buffer_add(out, AT(text, p)) < 0) {
                        return -1;
                    }
                    p++;
                }
            } else if (c == '"') {
                if (buffer_add(out, c) < 0) {
                    return -1;
                }
                quoted = 0;
                p++;
            } else if (is_break(c)) {
                if (depth == 0) {
                    break;
                }
                if (buffer_add(out, ' ') < 0) {
                    return -1;
                }
                p++;
                if (p < size && is_break(AT(text, p))) {
                    p++;
                }
            } else {
                if (buffer_add(out, c) < 0) {
                    return -1;
                }
                p++;
            }
            continue;
        }
        /* plain */
        if (c == '"') {
            if (buffer_add(out, c) < 0) {
                return -1;
            }
            quoted = 1;
            p++;
        } else if (c == '|' || (depth == 0 && is_break(c))) {
            break;
        } else if (c == '\\') {
            if (p + 1 < size && is_break(AT(text, p + 1))) {
                if (buffer_add(out, ' ') < 0) {
                    return -1;
                }
                p += 2;
                if (p < size && is_break(AT(text, p))) {
                    p++;
                }
            } else {
                if (buffer_add(out, c) < 0) {
                    return -1;
                }
                p++;
            }
        } else if (is_break(c)) { /* inside braces: a space, two breaks in a row as one */
            if (buffer_add(out, ' ') < 0) {
                return -1;
            }
            p++;
            if (p < size && is_break(AT(text, p))) {
                p++;
            }
        } else if (c == '{') {
            Py_ssize_t pairs = brace_pairs(text, p);
            if (pairs >= 0) {
                for (Py_ssize_t index = p; index < pairs; index++) {
                    Py_UCS4 inner = AT(text, index);
                    if (inner != '{' && inner != '}' && buffer_add(out, inner) < 0) {
                        return -1;
                    }
                }
                p = pairs;
            } else {
                depth++;
                p++;
            }
        } else if (c == '}' && depth > 0) {
            depth--;
            p++;
        } else if (c == '/' && p + 1 < size && AT(text, p + 1) == '/') {
            ignore = 1;
            p += 2;
        } else {
            if (buffer_add(out, c) < 0) {
                return -1;
            }
            p++;
        }
    }
    *text_end = p;
    while (p < size) {
        Py_UCS4 c = AT(text, p);
        if (!(c == '|' || is_break(c))) {
            break;
        }
        p++;
    }
    return p;
}

static inline int is_octal(Py_UCS4 c) { return c >= '0' && c <= '7'; }

static inline int hex_digit(Py_UCS4 c) {
    if (c >= '0' && c <= '9') {
        return (int)(c - '0');
    }
    if (c >= 'a' && c <= 'f') {
        return (int)(c - 'a' + 10);
    }
    if (c >= 'A' && c <= 'F') {
        return (int)(c - 'A' + 10);
    }
    return -1;
}

/* FParse::QuotedString (ini_scan.quoted_string): the text between the quotes, escapes resolved. */
static int quoted_string(const Py_UCS4 *value, Py_ssize_t size, Buffer *out) {
    out->size = 0;
    Py_ssize_t p = 1;
    while (p < size) {
        Py_UCS4 c = value[p];
        if (c == '"' || is_break(c)) {
            break;
        }
        if (c != '\\') {
            if (buffer_add(out, c) < 0) {
                return -1;
            }
            p++;
            continue;
        }
        p++;
        Py_UCS4 escape = p < size ? value[p] : 0;
        int has_escape = p < size;
        Py_UCS4 following = p + 1 < size ? value[p + 1] : 0;
        int has_following = p + 1 < size;
        Py_UCS4 simple = 0;
        if (has_escape) {
            switch (escape) {
            case '\\': simple = '\\'; break;
            case '"': simple = '"'; break;
            case '\'': simple = '\''; break;
            case 'n': simple = '\n'; break;
            case 'r': simple = '\r'; break;
            case 't': simple = '\t'; break;
            default: break;
            }
        }
        if (simple) {
            if (buffer_add(out, simple) < 0) {
                return -1;
            }
            p++;
        } else if (has_escape && is_octal(escape)) {
            uint32_t code = 0;
            int taken = 0;
            while (p < size && taken < 3 && is_octal(value[p])) {
                code = code * 8 + (uint32_t)(value[p] - '0');
                p++;
                taken++;
            }
            if (buffer_add(out, code) < 0) {
                return -1;
            }
        } else if (has_escape && (escape == 'x' || escape == 'u' || escape == 'U') && has_following &&
                   hex_digit(following) >= 0) {
            Py_ssize_t limit = escape == 'u' ? 4 : escape == 'U' ? 8 : size;
            uint64_t code = 0;
            Py_ssize_t taken = 0;
            p++;
            while (p < size && taken < limit && hex_digit(value[p]) >= 0) {
                code = (code << 4) | (uint64_t)hex_digit(value[p]);
                if (escape == 'x') {
                    code &= 0xFFFF; /* '\x' is cast to a 16-bit TCHAR: only the last four digits count */
                }
                p++;
                taken++;
            }
            if (buffer_add(out, code <= 0x10FFFF ? (Py_UCS4)code : (Py_UCS4)'?') < 0) {
                return -1;
            }
        } else { /* an unknown escape keeps its backslash */
            if (buffer_add(out, '\\') < 0) {
                return -1;
            }
            if (has_escape && buffer_add(out, escape) < 0) {
                return -1;
            }
            p++;
        }
    }
    return 0;
}

/* Every key line of the asked key in the asked section, as CombineFromBuffer takes them (ini_scan.engine_parse). */
static int engine_walk(const Text *text, const Names *names, LineHandler handler, void *context) {
    Buffer line = {0};
    Buffer unquoted = {0};
    int result = -1;
    int in_section = 0;
    Py_ssize_t p = 0;
    while (p < text->size && (AT(text, p) == '|' || is_break(AT(text, p)))) {
        p++;
    }
    while (p < text->size) {
        Py_ssize_t start = p;
        Py_ssize_t end = 0;
        p = engine_line(text, p, &line, &end);
        if (p < 0) {
            goto done;
        }
        const Py_UCS4 *b = line.data;
        Py_ssize_t size = line.size;
        while (size > 0 && is_cpp_space(b[size - 1])) {
            size--;
        }
        if (size >= 2 && b[0] == '[' && b[size - 1] == ']') {
            in_section = name_equals(b + 1, size - 2, names->section, names->section_size);
            continue;
        }
        if (!in_section || size == 0 || b[0] == ';') {
            continue;
        }
        Py_ssize_t equals = 0;
        while (equals < size && b[equals] != '=') {
            equals++;
        }
        if (equals == size) {
            continue;
        }
        Py_ssize_t key_start = 0;
        while (key_start < equals && is_cpp_space(b[key_start])) {
            key_start++;
        }
        if (key_start < equals && b[key_start] == '~') {
            key_start++;
        }
        char action = 0;
        if (key_start < equals && b[key_start] < 128 && b[key_start] != 0 && strchr("+.-!@*", (int)b[key_start])) {
            action = (char)b[key_start];
            key_start++;
        }
        Py_ssize_t key_end = equals;
        while (key_end > key_start && is_cpp_space(b[key_end - 1])) {
            key_end--;
        }
        if (!name_equals(b + key_start, key_end - key_start, names->key, names->key_size)) {
            continue;
        }
        Py_ssize_t value_start = equals + 1;
        while (value_start < size && is_cpp_space(b[value_start])) {
            value_start++;
        }
        KeyLine found = {action, b + value_start, size - value_start, start, end};
        if (found.value_size > 0 && found.value[0] == '"') {
            if (quoted_string(found.value, found.value_size, &unquoted) < 0) {
                goto done;
            }
            found.value = unquoted.data;
            found.value_size = unquoted.size;
        }
        int handled = handler(context, &found);
        if (handled != 0) {
            result = handled;
            goto done;
        }
    }
    result = 0;
done:
    PyMem_Free(line.data);
    PyMem_Free(unquoted.data);
    return result;
}

/* UnrealBuildTool: ReadLine, ReadIntoSections -------------------------------------------------------------------- */

/* The end of the physical line from position (before its break), and where the next one starts (*next). */
static Py_ssize_t physical_end(const Text *text, Py_ssize_t position, Py_ssize_t *next) {
    Py_ssize_t p = position;
    while (p < text->size && !is_break(AT(text, p))) {
        p++;
    }
    Py_ssize_t end = p;
    if (p < text->size) {
        p += (AT(text, p) == '\r' && p + 1 < text->size && AT(text, p + 1) == '\n') ? 2 : 1;
    }
    *next = p;
    return end;
}

/* Whether a physical line's last character but blanks is a backslash (0: it has another one; -1: it is blank). */
static int ends_in_backslash(const Text *text, Py_ssize_t start, Py_ssize_t end) {
    while (end > start && is_blank(AT(text, end - 1))) {
        end--;
    }
    if (end == start) {
        return -1;
    }
    return AT(text, end - 1) == '\\';
}

static int ubt_walk(const Text *text, const Names *names, LineHandler handler, void *context) {
    Buffer line = {0};
    int result = -1;
    int in_section = 0;
    Py_ssize_t p = 0;
    while (p < text->size) {
        Py_ssize_t start = p;
        Py_ssize_t next = 0;
        Py_ssize_t end = physical_end(text, p, &next);
        line.size = 0;
        if (buffer_reserve(&line, end - start) < 0) {
            goto done;
        }
        for (Py_ssize_t index = start; index < end; index++) {
            line.data[line.size++] = AT(text, index);
        }
        /* a line with a character but blanks whose last one is '\' takes the next line, and so on while the line
         * taken is blank or ends in '\' too (ConfigFile.ReadIntoSections) */
        if (ends_in_backslash(text, start, end) == 1) {
            while (next < text->size) {
                Py_ssize_t following_start = next;
                Py_ssize_t following_end = physical_end(text, next, &next);
                if (buffer_reserve(&line, following_end - following_start) < 0) {
                    goto done;
                }
                for (Py_ssize_t index = following_start; index < following_end; index++) {
                    line.data[line.size++] = AT(text, index);
                }
                end = following_end;
                if (ends_in_backslash(text, following_start, following_end) == 0) {
                    break;
                }
            }
        }
        p = next;
        const Py_UCS4 *b = line.data;
        Py_ssize_t size = line.size;
        Py_ssize_t first = 0;
        while (first < size && is_blank(b[first])) {
            first++;
        }
        if (first == size) {
            continue;
        }
        Py_ssize_t last = size;
        while (last > first && is_blank(b[last - 1])) {
            last--;
        }
        if (b[first] == ';' || (b[first] == '/' && first + 1 < size && b[first + 1] == '/')) {
            continue;
        }
        if (b[first] == '[') {
            in_section = b[last - 1] == ']' && last - 1 > first &&
                         name_equals(b + first + 1, last - first - 2, names->section, names->section_size);
            continue;
        }
        if (!in_section) {
            continue;
        }
        Py_ssize_t equals = first;
        while (equals < last && b[equals] != '=') {
            equals++;
        }
        int has_equals = equals < last;
        if (!has_equals && b[first] != '!') {
            continue;
        }
        Py_ssize_t key_start = first;
        char action = 0;
        if (b[first] == '+' || b[first] == '-' || b[first] == '!') {
            action = (char)b[first];
            key_start++;
            while (key_start < size && is_blank(b[key_start])) {
                key_start++;
            }
        }
        KeyLine found = {action, b, 0, start, end};
        if (action == '!' && !has_equals) { /* '!Key': the rest of the line, stripped of any whitespace */
            Py_ssize_t key_end = size;
            while (key_start < key_end && Py_UNICODE_ISSPACE(b[key_start])) {
                key_start++;
            }
            while (key_end > key_start && Py_UNICODE_ISSPACE(b[key_end - 1])) {
                key_end--;
            }
            if (!name_equals(b + key_start, key_end - key_start, names->key, names->key_size)) {
                continue;
            }
        } else {
            Py_ssize_t key_end = equals;
            while (key_end > key_start && is_blank(b[key_end - 1])) {
                key_end--;
            }
            if (key_start >= equals || !name_equals(b + key_start, key_end - key_start, names->key, names->key_size)) {
                continue;
            }
            Py_ssize_t value_start = equals + 1;
            while (value_start < last && is_blank(b[value_start])) {
                value_start++;
            }
            Py_ssize_t value_end = last;
            if (value_end >= value_start + 2 && b[value_start] == '"' && b[value_end - 1] == '"') {
                value_start++;
                value_end--;
            }
            found.value = b + value_start;
            found.value_size = value_end - value_start;
        }
        int handled = handler(context, &found);
        if (handled != 0) {
            result = handled;
            goto done;
        }
    }
    result = 0;
done:
    PyMem_Free(line.data);
    return result;
}

typedef int (*Walker)(const Text *, const Names *, LineHandler, void *);

/* Values as str, the last one made kept so that runs of equal values share one object. */
typedef struct {
    PyObject *last;
} Values;

static PyObject *value_object(Values *values, const Py_UCS4 *data, Py_ssize_t size) {
    PyObject *last = values->last;
    if (last != NULL && PyUnicode_GET_LENGTH(last) == size) {
        int kind = PyUnicode_KIND(last);
        const void *last_data = PyUnicode_DATA(last);
        Py_ssize_t index = 0;
        while (index < size && PyUnicode_READ(kind, last_data, index) == data[index]) {
            index++;
        }
        if (index == size) {
            Py_INCREF(last);
            return last;
        }
    }
    PyObject *made = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, data, size);
    if (made == NULL) {
        return NULL;
    }
    Py_XDECREF(values->last);
    Py_INCREF(made);
    values->last = made;
    return made;
}

/* Distinct values ------------------------------------------------------------------------------------------------ */

/* Each distinct value (str) once, with the last place that holds it (-1: none) and how many places do: open
 * addressing over the values' own hashes. */
typedef struct {
    PyObject *text;
    Py_hash_t hash;
    int32_t head;
    int32_t count;
} Distinct;

typedef struct {
    Distinct *distinct;
    Py_ssize_t size;
    Py_ssize_t capacity;
    int32_t *slots; /* -1: empty */
    Py_ssize_t slot_count;
} Table;

/* Empties the table; its slots are made again to the next values' measure when they were many, so that a reset
 * costs no more than the values it drops. */
static void table_reset(Table *table) {
    Py_ssize_t used = table->size;
    for (Py_ssize_t index = 0; index < used; index++) {
        Py_DECREF(table->distinct[index].text);
    }
    table->size = 0;
    if (table->slots == NULL || used == 0) {
        return;
    }
    if (table->slot_count > 1024) {
        PyMem_Free(table->slots);
        table->slots = NULL;
        table->slot_count = 0;
    } else {
        memset(table->slots, 0xFF, (size_t)table->slot_count * sizeof(int32_t));
    }
}

static void table_free(Table *table) {
    table_reset(table);
    PyMem_Free(table->distinct);
    PyMem_Free(table->slots);
}

/* The index of a value (-1: not there), or -2 on an error. */
static int32_t table_find(Table *table, PyObject *text, Py_hash_t hash) {
    if (table->slots == NULL) {
        return -1;
    }
    size_t mask = (size_t)table->slot_count - 1;
    size_t slot = (size_t)hash & mask;
    for (;;) {
        int32_t index = table->slots[slot];
        if (index < 0) {
            return -1;
        }
        Distinct *entry = &table->distinct[index];
        if (entry->hash == hash) {
            if (entry->text == text) {
                return index;
            }
            int equal = PyUnicode_Compare(entry->text, text);
            if (equal == -1 && PyErr_Occurred()) {
                return -2;
            }
            if (equal == 0) {
                return index;
            }
        }
        slot = (slot + 1) & mask;
    }
}

static int table_grow_slots(Table *table) {
    Py_ssize_t count = table->slot_count ? table->slot_count * 2 : 64;
    while (count < table->size * 2 + 2) {
        count *= 2;
    }
    int32_t *slots = PyMem_Malloc((size_t)count * sizeof(int32_t));
    if (slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memset(slots, 0xFF, (size_t)count * sizeof(int32_t));
    size_t mask = (size_t)count - 1;
    for (Py_ssize_t index = 0; index < table->size; index++) {
        size_t slot = (size_t)table->distinct[index].hash & mask;
        while (slots[slot] >= 0) {
            slot = (slot + 1) & mask;
        }
        slots[slot] = (int32_t)index;
    }
    PyMem_Free(table->slots);
    table->slots = slots;
    table->slot_count = count;
    return 0;
}

/* The index of a value, added when new; -1 on an error. */
static int32_t table_intern(Table *table, PyObject *text, Py_hash_t hash) {
    int32_t found = table_find(table, text, hash);
    if (found != -1) {
        return found == -2 ? -1 : found;
    }
    if ((table->size + 1) * 2 > table->slot_count && table_grow_slots(table) < 0) {
        return -1;
    }
    if (table->size >= INT32_MAX - 1) {
        PyErr_SetString(PyExc_MemoryError, "too many distinct values");
        return -1;
    }
    if (table->size == table->capacity) {
        Py_ssize_t capacity = table->capacity ? table->capacity * 2 : 64;
        Distinct *grown = PyMem_Realloc(table->distinct, (size_t)capacity * sizeof(Distinct));
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        table->distinct = grown;
        table->capacity = capacity;
    }
    int32_t index = (int32_t)table->size++;
    Py_INCREF(text);
    table->distinct[index] = (Distinct){text, hash, -1, 0};
    size_t mask = (size_t)table->slot_count - 1;
    size_t slot = (size_t)hash & mask;
    while (table->slots[slot] >= 0) {
        slot = (slot + 1) & mask;
    }
    table->slots[slot] = index;
    return index;
}

/* The engine's merge --------------------------------------------------------------------------------------------- */

/* The key's array: each place names its value (an index in the table, -1 once taken out), the place before it with
 * the same value (so '-' takes the last equal one at once) and its line (text index << 40 | offset). Every place on
 * a value's chain is in the array: only a chain's head is ever taken out. */
typedef struct {
    int32_t value;
    int32_t previous;
    int64_t ref;
} Place;

typedef struct {
    Place *places;
    Py_ssize_t size;
    Py_ssize_t capacity;
    Table table;
    Py_ssize_t live;
    int structs;
    int64_t document;
    Values values;
} EngineMerge;

static void engine_reset(EngineMerge *merge) {
    table_reset(&merge->table);
    merge->size = 0;
    merge->live = 0;
}

static void engine_free(EngineMerge *merge) {
    table_free(&merge->table);
    PyMem_Free(merge->places);
    Py_XDECREF(merge->values.last);
}

static int engine_append(EngineMerge *merge, int32_t value, int64_t ref) {
    if (merge->size >= INT32_MAX - 1) {
        PyErr_SetString(PyExc_MemoryError, "too many values");
        return -1;
    }
    if (merge->size == merge->capacity) {
        Py_ssize_t capacity = merge->capacity ? merge->capacity * 2 : 256;
        Place *grown = PyMem_Realloc(merge->places, (size_t)capacity * sizeof(Place));
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        merge->places = grown;
        merge->capacity = capacity;
    }
    Distinct *entry = &merge->table.distinct[value];
    merge->places[merge->size] = (Place){value, entry->head, ref};
    entry->head = (int32_t)merge->size;
    entry->count++;
    merge->size++;
    merge->live++;
    return 0;
}

/* Takes out a value's last place (its chain's head), then the places taken out at the end of the array. */
static void engine_take_out(EngineMerge *merge, int32_t value) {
    Distinct *entry = &merge->table.distinct[value];
    Place *place = &merge->places[entry->head];
    entry->head = place->previous;
    entry->count--;
    place->value = -1;
    merge->live--;
    while (merge->size > 0 && merge->places[merge->size - 1].value < 0) {
        merge->size--;
    }
}

static int engine_line_merged(void *context, const KeyLine *line) {
    EngineMerge *merge = context;
    char action = line->action;
    if (action == '@') {
        merge->structs = 1;
        return 1; /* handed back: Python merges struct keys */
    }
    if (action == '*') {
        return 0; /* per-object struct keys: not modelled, the line passed over (as unreal_ini does) */
    }
    if (action == '!') {
        engine_reset(merge);
        return 0;
    }
    PyObject *text = value_object(&merge->values, line->value, line->value_size);
    if (text == NULL) {
        return -1;
    }
    Py_hash_t hash = PyObject_Hash(text);
    int result = -1;
    int64_t ref = (merge->document << 40) | (int64_t)line->start;
    if (hash == -1) {
        goto done;
    }
    if (action == '-') {
        int32_t found = table_find(&merge->table, text, hash);
        if (found == -2) {
            goto done;
        }
        if (found >= 0 && merge->table.distinct[found].count > 0) {
            engine_take_out(merge, found);
        }
        result = 0;
        goto done;
    }
    int32_t value = table_intern(&merge->table, text, hash);
    if (value < 0) {
        goto done;
    }
    if (action == '+' && merge->table.distinct[value].count > 0) {
        result = 0; /* AddUnique: already there */
        goto done;
    }
    if (action == 0 && merge->live > 0) { /* Find gives the last pair: its value replaced */
        engine_take_out(merge, merge->places[merge->size - 1].value);
    }
    result = engine_append(merge, value, ref);
done:
    Py_DECREF(text);
    return result;
}

/* UnrealBuildTool's merge --------------------------------------------------------------------------------------- */

/* str.lower() of a value, as unreal_ini compares '-' lines (any case). */
static PyObject *lowered(PyObject *text) {
    if (PyUnicode_IS_ASCII(text)) {
        Py_ssize_t size = PyUnicode_GET_LENGTH(text);
        const Py_UCS1 *data = PyUnicode_1BYTE_DATA(text);
        Py_ssize_t index = 0;
        while (index < size && !(data[index] >= 'A' && data[index] <= 'Z')) {
            index++;
        }
        if (index == size) {
            Py_INCREF(text);
            return text;
        }
    }
    return PyObject_CallMethod(text, "lower", NULL);
}

/* ConfigHierarchySection's list of values: each place holds its value (NULL once removed), the index of its value
 * in any case (the table holds the lowered values) and the place before it with that value in any case, so that a
 * '-' line takes out every one of them by its chain; a place is taken out once. When only the first value is asked,
 * equal lines in a row are one place (a '-' line takes all of them or none). */
typedef struct {
    PyObject *value;
    int32_t lowered;
    int32_t previous;
    int64_t ref;
} UbtPlace;

typedef struct {
    UbtPlace *places;
    Py_ssize_t size;
    Py_ssize_t capacity;
    Table table;
    int everything;
    int64_t document;
    Values values;
} UbtMerge;

static void ubt_clear(UbtMerge *merge) {
    for (Py_ssize_t index = 0; index < merge->size; index++) {
        Py_XDECREF(merge->places[index].value);
    }
    merge->size = 0;
    table_reset(&merge->table);
}

static void ubt_free(UbtMerge *merge) {
    ubt_clear(merge);
    table_free(&merge->table);
    PyMem_Free(merge->places);
    Py_XDECREF(merge->values.last);
}

static int ubt_line_merged(void *context, const KeyLine *line) {
    UbtMerge *merge = context;
    char action = line->action;
    if (action == '!') {
        ubt_clear(merge);
        return 0;
    }
    PyObject *text = value_object(&merge->values, line->value, line->value_size);
    if (text == NULL) {
        return -1;
    }
    int result = -1;
    PyObject *key = lowered(text);
    if (key == NULL) {
        goto done;
    }
    Py_hash_t hash = PyObject_Hash(key);
    if (hash == -1) {
        goto done;
    }
    if (action == '-') {
        int32_t found = table_find(&merge->table, key, hash);
        if (found == -2) {
            goto done;
        }
        if (found >= 0) {
            Distinct *entry = &merge->table.distinct[found];
            for (int32_t place = entry->head; place >= 0; place = merge->places[place].previous) {
                Py_CLEAR(merge->places[place].value);
            }
            entry->head = -1;
            entry->count = 0;
        }
        result = 0;
        goto done;
    }
    if (action == 0) { /* a plain line replaces every value */
        ubt_clear(merge);
    }
    int32_t value = table_intern(&merge->table, key, hash);
    if (value < 0) {
        goto done;
    }
    Distinct *entry = &merge->table.distinct[value];
    if (!merge->everything && merge->size > 0 && entry->head == merge->size - 1 &&
        merge->places[merge->size - 1].value == text) {
        result = 0; /* the same value again: one place with the first line */
        goto done;
    }
    if (merge->size >= INT32_MAX - 1) {
        PyErr_SetString(PyExc_MemoryError, "too many values");
        goto done;
    }
    if (merge->size == merge->capacity) {
        Py_ssize_t capacity = merge->capacity ? merge->capacity * 2 : 256;
        UbtPlace *grown = PyMem_Realloc(merge->places, (size_t)capacity * sizeof(UbtPlace));
        if (grown == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        merge->places = grown;
        merge->capacity = capacity;
    }
    Py_INCREF(text);
    merge->places[merge->size] =
        (UbtPlace){text, value, entry->head, (merge->document << 40) | (int64_t)line->start};
    entry->head = (int32_t)merge->size;
    entry->count++;
    merge->size++;
    result = 0;
done:
    Py_XDECREF(key);
    Py_DECREF(text);
    return result;
}

/* The module -------------------------------------------------------------------------------------------------------- */

static int text_of(PyObject *object, Text *text) {
    if (!PyUnicode_Check(object)) {
        PyErr_SetString(PyExc_TypeError, "texts must be str");
        return -1;
    }
    if (PyUnicode_GET_LENGTH(object) >= ((Py_ssize_t)1 << 40)) {
        PyErr_SetString(PyExc_ValueError, "a text of 2**40 characters or more");
        return -1;
    }
    text->kind = PyUnicode_KIND(object);
    text->data = PyUnicode_DATA(object);
    text->size = PyUnicode_GET_LENGTH(object);
    return 0;
}

/* Adds (value, text index, offset) to the list of values found. */
static int found_add(PyObject *found, PyObject *value, int64_t ref) {
    PyObject *item = Py_BuildValue("(OLL)", value, (long long)(ref >> 40), (long long)(ref & (((int64_t)1 << 40) - 1)));
    if (item == NULL) {
        return -1;
    }
    int failed = PyList_Append(found, item) < 0;
    Py_DECREF(item);
    return failed ? -1 : 0;
}

static PyObject *native_key_values(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *texts;
    PyObject *section;
    PyObject *key;
    int ubt;
    int everything;
    Names names;
    if (!PyArg_ParseTuple(args, "OUUpp", &texts, &section, &key, &ubt, &everything)) {
        return NULL;
    }
    if (names_read(&names, section, key) < 0) {
        return NULL;
    }
    PyObject *sequence = PySequence_Fast(texts, "texts must be a sequence of str");
    if (sequence == NULL) {
        return NULL;
    }
    Py_ssize_t count = PySequence_Fast_GET_SIZE(sequence);
    if (count >= ((Py_ssize_t)1 << 22)) {
        Py_DECREF(sequence);
        PyErr_SetString(PyExc_ValueError, "too many texts");
        return NULL;
    }
    PyObject *result = NULL;
    if (!ubt) {
        EngineMerge merge = {0};
        for (Py_ssize_t index = 0; index < count; index++) {
            Text text;
            if (text_of(PySequence_Fast_GET_ITEM(sequence, index), &text) < 0) {
                goto engine_done;
            }
            merge.document = index;
            int walked = engine_walk(&text, &names, engine_line_merged, &merge);
            if (walked < 0) {
                goto engine_done;
            }
            if (merge.structs) {
                result = Py_NewRef(Py_None);
                goto engine_done;
            }
        }
        result = PyList_New(0);
        if (result == NULL) {
            goto engine_done;
        }
        for (Py_ssize_t index = everything ? 0 : merge.size - 1; index >= 0 && index < merge.size; index++) {
            Place *place = &merge.places[index];
            if (place->value < 0) {
                continue;
            }
            if (found_add(result, merge.table.distinct[place->value].text, place->ref) < 0) {
                Py_CLEAR(result);
                goto engine_done;
            }
        }
    engine_done:
        engine_free(&merge);
    } else {
        UbtMerge merge = {0};
        merge.everything = everything;
        for (Py_ssize_t index = 0; index < count; index++) {
            Text text;
            if (text_of(PySequence_Fast_GET_ITEM(sequence, index), &text) < 0) {
                goto ubt_done;
            }
            merge.document = index;
            if (ubt_walk(&text, &names, ubt_line_merged, &merge) < 0) {
                goto ubt_done;
            }
        }
        result = PyList_New(0);
        if (result == NULL) {
            goto ubt_done;
        }
        for (Py_ssize_t index = 0; index < merge.size; index++) {
            UbtPlace *place = &merge.places[index];
            if (place->value == NULL) {
                continue;
            }
            if (found_add(result, place->value, place->ref) < 0) {
                Py_CLEAR(result);
                goto ubt_done;
            }
            if (!everything) {
                break; /* the first value is the one read */
            }
        }
    ubt_done:
        ubt_free(&merge);
    }
    Py_DECREF(sequence);
    return result;
}

/* key_line: the key's last line in the section. */
typedef struct {
    char action;
    int structs;
    int found;
    Py_ssize_t start;
    Py_ssize_t end;
    Buffer value;
} LastLine;

static int last_line_kept(void *context, const KeyLine *line) {
    LastLine *last = context;
    if (line->action == '@') {
        last->structs = 1;
    }
    last->found = 1;
    last->action = line->action;
    last->start = line->start;
    last->end = line->end;
    last->value.size = 0;
    if (buffer_reserve(&last->value, line->value_size) < 0) {
        return -1;
    }
    if (line->value_size > 0) {
        memcpy(last->value.data, line->value, (size_t)line->value_size * sizeof(Py_UCS4));
    }
    last->value.size = line->value_size;
    return 0;
}

static PyObject *native_key_line(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *object;
    PyObject *section;
    PyObject *key;
    int ubt;
    Names names;
    Text text;
    if (!PyArg_ParseTuple(args, "UUUp", &object, &section, &key, &ubt)) {
        return NULL;
    }
    if (names_read(&names, section, key) < 0 || text_of(object, &text) < 0) {
        return NULL;
    }
    LastLine last = {0};
    Walker walk = ubt ? ubt_walk : engine_walk;
    PyObject *result = NULL;
    if (walk(&text, &names, last_line_kept, &last) < 0) {
        goto done;
    }
    if (!last.found) {
        result = Py_BuildValue("(OO)", Py_None, last.structs ? Py_True : Py_False);
        goto done;
    }
    char action[2] = {last.action, 0};
    PyObject *value = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, last.value.data, last.value.size);
    if (value == NULL) {
        goto done;
    }
    result = Py_BuildValue("((sNnn)O)", action, value, last.start, last.end, last.structs ? Py_True : Py_False);
done:
    PyMem_Free(last.value.data);
    return result;
}

static PyMethodDef ini_methods[] = {
    {"key_values", native_key_values, METH_VARARGS,
     "key_values(texts, section, key, ubt, everything): [(value, text index, line start), ...] merged as the reader "
     "merges them (everything false: the single value read), or None for '@' struct keys."},
    {"key_line", native_key_line, METH_VARARGS,
     "key_line(text, section, key, ubt): ((prefix, value, line start, text end) or None, whether an '@' line is "
     "there)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef ini_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_ini_native",
    .m_doc = "The optional compiled core of the config-file readers (see _ini_native.c).",
    .m_size = -1,
    .m_methods = ini_methods,
};

PyMODINIT_FUNC PyInit__ini_native(void) { return PyModule_Create(&ini_module); }
