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

/* Characters in the narrowest of Python's three widths that holds them (1, 2 or 4 bytes a character), widened when
 * a wider one comes: a line of a 16 MiB ASCII text takes 16 MB, not 64. */
typedef struct {
    int kind; /* 0 until the first character: then 1 */
    char *data;
    Py_ssize_t size;
    Py_ssize_t capacity;
} Buffer;

#define BUF_AT(buffer, index) PyUnicode_READ((buffer)->kind, (buffer)->data, (index))

static inline Py_UCS4 kind_limit(int kind) { return kind == 1 ? 0xFF : kind == 2 ? 0xFFFF : 0x10FFFF; }

static int buffer_widen(Buffer *buffer, int kind) {
    if (buffer->kind == 0) {
        buffer->kind = kind;
        return 0;
    }
    char *wider = PyMem_Malloc((size_t)(buffer->capacity ? buffer->capacity : 1) * (size_t)kind);
    if (wider == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t index = 0; index < buffer->size; index++) {
        PyUnicode_WRITE(kind, wider, index, BUF_AT(buffer, index));
    }
    PyMem_Free(buffer->data);
    buffer->data = wider;
    buffer->kind = kind;
    return 0;
}

static int buffer_reserve(Buffer *buffer, Py_ssize_t more) {
    if (buffer->kind == 0) {
        buffer->kind = 1;
    }
    if (buffer->size + more <= buffer->capacity) {
        return 0;
    }
    Py_ssize_t capacity = buffer->capacity ? buffer->capacity : 256;
    while (capacity < buffer->size + more) {
        capacity += capacity / 2;
    }
    char *grown = PyMem_Realloc(buffer->data, (size_t)capacity * (size_t)buffer->kind);
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    buffer->data = grown;
    buffer->capacity = capacity;
    return 0;
}

static inline int buffer_add(Buffer *buffer, Py_UCS4 character) {
    if (buffer->kind == 0 || character > kind_limit(buffer->kind)) {
        int kind = character > 0xFFFF ? 4 : character > 0xFF ? 2 : 1;
        if (buffer_widen(buffer, kind > buffer->kind ? kind : (buffer->kind ? buffer->kind : 1)) < 0) {
            return -1;
        }
    }
    if (buffer->size == buffer->capacity && buffer_reserve(buffer, 1) < 0) {
        return -1;
    }
    PyUnicode_WRITE(buffer->kind, buffer->data, buffer->size, character);
    buffer->size++;
    return 0;
}

/* The text ----------------------------------------------------------------------------------------------------------- */

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t size;
} Text;

#define AT(text, index) PyUnicode_READ((text)->kind, (text)->data, (index))
#define B(index) BUF_AT(read, (index))

static inline int is_break(Py_UCS4 c) { return c == '\r' || c == '\n'; }

/* FChar::IsWhitespace in the C locale: what the engine trims (CPP_SPACE). */
static inline int is_cpp_space(Py_UCS4 c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static inline int is_blank(Py_UCS4 c) { return c == ' ' || c == '\t'; }

/* Where a run of characters that mean nothing to the engine's line rules ends (at a quote, '|', a backslash, a
 * brace, '/' or a line break), or, with breaks_only, where the physical line ends: one tight loop a width, since
 * most of a file is such runs. */
static unsigned char SPECIAL[128];
static unsigned char BREAKS[128];

static Py_ssize_t run_end(const Text *text, Py_ssize_t p, int breaks_only) {
    const unsigned char *stops = breaks_only ? BREAKS : SPECIAL;
    Py_ssize_t size = text->size;
    switch (text->kind) {
    case PyUnicode_1BYTE_KIND: {
        const Py_UCS1 *data = text->data;
        while (p < size && (data[p] >= 128 || !stops[data[p]])) {
            p++;
        }
        return p;
    }
    case PyUnicode_2BYTE_KIND: {
        const Py_UCS2 *data = text->data;
        while (p < size && (data[p] >= 128 || !stops[data[p]])) {
            p++;
        }
        return p;
    }
    default: {
        const Py_UCS4 *data = text->data;
        while (p < size && (data[p] >= 128 || !stops[data[p]])) {
            p++;
        }
        return p;
    }
    }
}

/* The line breaks from "from" to "to" as unreal_ini.line_number counts them: CR, LF, and CRLF as one (a CR is
 * counted where no LF follows it, even past "to": an offset on the LF of a CRLF is on the CR's line). */
static Py_ssize_t count_lines(const Text *text, Py_ssize_t from, Py_ssize_t to) {
    Py_ssize_t count = 0;
    for (Py_ssize_t index = from; index < to; index++) {
        Py_UCS4 c = AT(text, index);
        if (c == '\n' || (c == '\r' && !(index + 1 < text->size && AT(text, index + 1) == '\n'))) {
            count++;
        }
    }
    return count;
}

/* A buffer that is a stretch of the text itself (never written to). */
static Buffer text_view(const Text *text, Py_ssize_t start, Py_ssize_t end) {
    Buffer view = {text->kind, (char *)text->data + start * text->kind, end - start, end - start};
    return view;
}

/* Names: the asked section and key are plain ASCII (ini_scan.fast_name), compared as Python's str.lower() compares
 * them: ASCII letters in either case, and the Kelvin sign, the one other character whose lower() is ASCII ('k'). */
typedef struct {
    PyObject *lowered[2]; /* the section and the key in lower case (ASCII str) */
    const char *section;
    Py_ssize_t section_size;
    const char *key;
    Py_ssize_t key_size;
} Names;

static void names_free(Names *names) {
    Py_CLEAR(names->lowered[0]);
    Py_CLEAR(names->lowered[1]);
}

static int names_read(Names *names, PyObject *section, PyObject *key) {
    PyObject *items[2] = {section, key};
    *names = (Names){{NULL, NULL}, NULL, 0, NULL, 0};
    for (int which = 0; which < 2; which++) {
        if (!PyUnicode_Check(items[which]) || !PyUnicode_IS_ASCII(items[which])) {
            names_free(names);
            PyErr_SetString(PyExc_ValueError, "the section and key must be ASCII names");
            return -1;
        }
        names->lowered[which] = PyObject_CallMethod(items[which], "lower", NULL);
        if (names->lowered[which] == NULL) {
            names_free(names);
            return -1;
        }
    }
    names->section = (const char *)PyUnicode_1BYTE_DATA(names->lowered[0]);
    names->section_size = PyUnicode_GET_LENGTH(names->lowered[0]);
    names->key = (const char *)PyUnicode_1BYTE_DATA(names->lowered[1]);
    names->key_size = PyUnicode_GET_LENGTH(names->lowered[1]);
    return 0;
}

static int name_equals(const Buffer *line, Py_ssize_t from, Py_ssize_t size, const char *lowered,
                       Py_ssize_t lowered_size) {
    if (size != lowered_size) {
        return 0;
    }
    for (Py_ssize_t index = 0; index < size; index++) {
        Py_UCS4 c = BUF_AT(line, from + index);
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
    const Buffer *chars; /* the value: size characters from "from" */
    Py_ssize_t from;
    Py_ssize_t value_size;
    Py_ssize_t start;
    Py_ssize_t end;
    Py_ssize_t line;      /* the physical line (1-based) where it starts, and where its text ends */
    Py_ssize_t last_line;
} KeyLine;

typedef int (*LineHandler)(void *context, const KeyLine *line);

/* A section header: whether it names the asked section, where its line starts and where its text ends. */
typedef int (*HeaderHandler)(void *context, int asked, Py_ssize_t start, Py_ssize_t end, Py_ssize_t line);

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
static int quoted_string(const Buffer *source, Py_ssize_t from, Py_ssize_t size, Buffer *out) {
#define value(index) BUF_AT(source, from + (index))
    out->size = 0;
    Py_ssize_t p = 1;
    while (p < size) {
        Py_UCS4 c = value(p);
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
        Py_UCS4 escape = p < size ? value(p) : 0;
        int has_escape = p < size;
        Py_UCS4 following = p + 1 < size ? value(p + 1) : 0;
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
            while (p < size && taken < 3 && is_octal(value(p))) {
                code = code * 8 + (uint32_t)(value(p) - '0');
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
            while (p < size && taken < limit && hex_digit(value(p)) >= 0) {
                code = (code << 4) | (uint64_t)hex_digit(value(p));
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
#undef value

/* Every key line of the asked key in the asked section, as CombineFromBuffer takes them (ini_scan.engine_parse). */
static int engine_walk(const Text *text, const Names *names, LineHandler handler, HeaderHandler on_header,
                       void *context) {
    Buffer line = {0};
    Buffer unquoted = {0};
    int result = -1;
    int in_section = 0;
    Py_ssize_t p = 0;
    while (p < text->size && (AT(text, p) == '|' || is_break(AT(text, p)))) {
        p++;
    }
    Py_ssize_t line_number = 1 + count_lines(text, 0, p);
    while (p < text->size) {
        Py_ssize_t start = p;
        Py_ssize_t first_line = line_number;
        Py_ssize_t last_line = line_number;
        Py_ssize_t end = run_end(text, p, 0);
        Buffer view;
        const Buffer *read = &line;
        if (end >= text->size || AT(text, end) == '|' || is_break(AT(text, end))) {
            /* a simple line: its text is its characters, no line break among them */
            view = text_view(text, start, end);
            read = &view;
            p = end;
            while (p < text->size && (AT(text, p) == '|' || is_break(AT(text, p)))) {
                p++;
            }
            line_number += count_lines(text, end, p);
        } else {
            p = engine_line(text, p, &line, &end);
            if (p < 0) {
                goto done;
            }
            last_line = first_line + count_lines(text, start, end > start ? end - 1 : start);
            line_number = last_line + count_lines(text, end > start ? end - 1 : start, p);
        }
        Py_ssize_t size = read->size;
        while (size > 0 && is_cpp_space(B(size - 1))) {
            size--;
        }
        if (size >= 2 && B(0) == '[' && B(size - 1) == ']') {
            in_section = name_equals(read, 1, size - 2, names->section, names->section_size);
            if (on_header != NULL && on_header(context, in_section, start, end, first_line) < 0) {
                goto done;
            }
            continue;
        }
        if (handler == NULL || !in_section || size == 0 || B(0) == ';') {
            continue;
        }
        Py_ssize_t equals = 0;
        while (equals < size && B(equals) != '=') {
            equals++;
        }
        if (equals == size) {
            continue;
        }
        Py_ssize_t key_start = 0;
        while (key_start < equals && is_cpp_space(B(key_start))) {
            key_start++;
        }
        if (key_start < equals && B(key_start) == '~') {
            key_start++;
        }
        char action = 0;
        if (key_start < equals && B(key_start) < 128 && B(key_start) != 0 && strchr("+.-!@*", (int)B(key_start))) {
            action = (char)B(key_start);
            key_start++;
        }
        Py_ssize_t key_end = equals;
        while (key_end > key_start && is_cpp_space(B(key_end - 1))) {
            key_end--;
        }
        if (!name_equals(read, key_start, key_end - key_start, names->key, names->key_size)) {
            continue;
        }
        Py_ssize_t value_start = equals + 1;
        while (value_start < size && is_cpp_space(B(value_start))) {
            value_start++;
        }
        KeyLine found = {action, read, value_start, size - value_start, start, end, first_line, last_line};
        if (found.value_size > 0 && B(value_start) == '"') {
            if (quoted_string(read, value_start, found.value_size, &unquoted) < 0) {
                goto done;
            }
            found.chars = &unquoted;
            found.from = 0;
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
    Py_ssize_t p = run_end(text, position, 1);
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

static int ubt_walk(const Text *text, const Names *names, LineHandler handler, HeaderHandler on_header,
                    void *context) {
    Buffer line = {0};
    int result = -1;
    int in_section = 0;
    Py_ssize_t p = 0;
    Py_ssize_t line_number = 1;
    while (p < text->size) {
        Py_ssize_t start = p;
        Py_ssize_t first_line = line_number;
        Py_ssize_t last_line = line_number;
        Py_ssize_t next = 0;
        Py_ssize_t end = physical_end(text, p, &next);
        Buffer view = text_view(text, start, end);
        const Buffer *read = &view;
        /* a line with a character but blanks whose last one is '\' takes the next line, and so on while the line
         * taken is blank or ends in '\' too (ConfigFile.ReadIntoSections) */
        if (ends_in_backslash(text, start, end) == 1) {
            line.size = 0;
            read = &line;
            for (Py_ssize_t index = start; index < end; index++) {
                if (buffer_add(&line, AT(text, index)) < 0) {
                    goto done;
                }
            }
            int complete = 0;
            while (next < text->size) {
                Py_ssize_t following_start = next;
                Py_ssize_t following_end = physical_end(text, next, &next);
                for (Py_ssize_t index = following_start; index < following_end; index++) {
                    if (buffer_add(&line, AT(text, index)) < 0) {
                        goto done;
                    }
                }
                end = following_end;
                if (ends_in_backslash(text, following_start, following_end) == 0) {
                    complete = 1;
                    break;
                }
            }
            if (!complete) {
                end = text->size; /* the end of the text after a last line break ends it, as ini_scan's _ULL reads */
            }
            last_line = first_line + count_lines(text, start, end > start ? end - 1 : start);
            line_number = last_line + count_lines(text, end > start ? end - 1 : start, next);
        } else {
            line_number += next > end; /* a physical line: one break after it, if any (CRLF is one) */
        }
        p = next;
        Py_ssize_t size = read->size;
        Py_ssize_t first = 0;
        while (first < size && is_blank(B(first))) {
            first++;
        }
        if (first == size) {
            continue;
        }
        Py_ssize_t last = size;
        while (last > first && is_blank(B(last - 1))) {
            last--;
        }
        if (B(first) == ';' || (B(first) == '/' && first + 1 < size && B(first + 1) == '/')) {
            continue;
        }
        if (B(first) == '[') {
            int header = B(last - 1) == ']' && last - 1 > first;
            in_section = header && name_equals(read, first + 1, last - first - 2, names->section, names->section_size);
            if (header && on_header != NULL && on_header(context, in_section, start, end, first_line) < 0) {
                goto done;
            }
            continue;
        }
        if (handler == NULL || !in_section) {
            continue;
        }
        Py_ssize_t equals = first;
        while (equals < last && B(equals) != '=') {
            equals++;
        }
        int has_equals = equals < last;
        if (!has_equals && B(first) != '!') {
            continue;
        }
        Py_ssize_t key_start = first;
        char action = 0;
        if (B(first) == '+' || B(first) == '-' || B(first) == '!') {
            action = (char)B(first);
            key_start++;
            while (key_start < size && is_blank(B(key_start))) {
                key_start++;
            }
        }
        KeyLine found = {action, read, 0, 0, start, end, first_line, last_line};
        if (action == '!' && !has_equals) { /* '!Key': the rest of the line, stripped of any whitespace */
            Py_ssize_t key_end = size;
            while (key_start < key_end && Py_UNICODE_ISSPACE(B(key_start))) {
                key_start++;
            }
            while (key_end > key_start && Py_UNICODE_ISSPACE(B(key_end - 1))) {
                key_end--;
            }
            if (!name_equals(read, key_start, key_end - key_start, names->key, names->key_size)) {
                continue;
            }
        } else {
            Py_ssize_t key_end = equals;
            while (key_end > key_start && is_blank(B(key_end - 1))) {
                key_end--;
            }
            if (key_start >= equals || !name_equals(read, key_start, key_end - key_start, names->key, names->key_size)) {
                continue;
            }
            Py_ssize_t value_start = equals + 1;
            while (value_start < last && is_blank(B(value_start))) {
                value_start++;
            }
            Py_ssize_t value_end = last;
            if (value_end >= value_start + 2 && B(value_start) == '"' && B(value_end - 1) == '"') {
                value_start++;
                value_end--;
            }
            found.from = value_start;
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

typedef int (*Walker)(const Text *, const Names *, LineHandler, HeaderHandler, void *);

/* Distinct values ------------------------------------------------------------------------------------------------ */

/* A value: size characters of a buffer from "from". */
typedef struct {
    const Buffer *chars;
    Py_ssize_t from;
    Py_ssize_t size;
} Span;

static uint64_t span_hash(const Span *value) {
    uint64_t hash = 0xcbf29ce484222325u; /* FNV-1a over the code points */
    for (Py_ssize_t index = 0; index < value->size; index++) {
        hash = (hash ^ (uint64_t)BUF_AT(value->chars, value->from + index)) * 0x100000001b3u;
    }
    return hash;
}

/* Each distinct value once, its characters in an arena (no Python object a value: a million distinct values take
 * about 50 bytes each), with the last place that holds it (-1: none) and how many places do; open addressing. */
typedef struct {
    int64_t at;    /* its first byte in the arena, and its width (1, 2 or 4) from bit 56 */
    uint32_t hash; /* the low half of span_hash */
    int32_t size;
    int32_t head;
    int32_t count;
} Distinct;

#define AT_OF(entry) ((entry)->at & (((int64_t)1 << 56) - 1))
#define KIND_OF(entry) ((int)((entry)->at >> 56))

typedef struct {
    Distinct *distinct;
    Py_ssize_t size;
    Py_ssize_t capacity;
    int32_t *slots; /* -1: empty */
    Py_ssize_t slot_count;
    char *arena;
    Py_ssize_t arena_size;
    Py_ssize_t arena_capacity;
} Table;

static int grow(void **data, Py_ssize_t *capacity, Py_ssize_t needed, size_t item) {
    if (needed <= *capacity) {
        return 0;
    }
    Py_ssize_t wanted = *capacity ? *capacity : 64;
    while (wanted < needed) {
        wanted += wanted / 2;
    }
    void *grown = PyMem_Realloc(*data, (size_t)wanted * item);
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *data = grown;
    *capacity = wanted;
    return 0;
}

/* Empties the table; its slots are made again to the next values' measure when they were many, so that a reset
 * costs no more than the values it drops. */
static void table_reset(Table *table) {
    Py_ssize_t used = table->size;
    table->size = 0;
    table->arena_size = 0;
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
    PyMem_Free(table->distinct);
    PyMem_Free(table->slots);
    PyMem_Free(table->arena);
}

static int table_equals(const Table *table, const Distinct *entry, const Span *value) {
    if (entry->size != value->size) {
        return 0;
    }
    const char *stored = table->arena + AT_OF(entry);
    int kind = KIND_OF(entry);
    if (kind == value->chars->kind) {
        return memcmp(stored, value->chars->data + value->from * kind, (size_t)entry->size * (size_t)kind) == 0;
    }
    for (Py_ssize_t index = 0; index < value->size; index++) {
        if (PyUnicode_READ(kind, stored, index) != BUF_AT(value->chars, value->from + index)) {
            return 0;
        }
    }
    return 1;
}

/* The index of a value, or -1: not there. */
static int32_t table_find(const Table *table, const Span *value, uint64_t hash) {
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
        const Distinct *entry = &table->distinct[index];
        if (entry->hash == (uint32_t)hash && table_equals(table, entry, value)) {
            return index;
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
        while (slots[slot] >= 0) { /* the slots never outgrow 32 bits of hash: 2**31 values at most */
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
static int32_t table_intern(Table *table, const Span *value, uint64_t hash) {
    int32_t found = table_find(table, value, hash);
    if (found >= 0) {
        return found;
    }
    if (table->size >= INT32_MAX - 1 || value->size >= INT32_MAX) {
        PyErr_SetString(PyExc_MemoryError, "too many distinct values");
        return -1;
    }
    if ((table->size + 1) * 2 > table->slot_count && table_grow_slots(table) < 0) {
        return -1;
    }
    if (grow((void **)&table->distinct, &table->capacity, table->size + 1, sizeof(Distinct)) < 0) {
        return -1;
    }
    Py_UCS4 widest = 0;
    for (Py_ssize_t index = 0; index < value->size; index++) {
        Py_UCS4 c = BUF_AT(value->chars, value->from + index);
        widest = c > widest ? c : widest;
    }
    int kind = widest > 0xFFFF ? 4 : widest > 0xFF ? 2 : 1;
    table->arena_size = (table->arena_size + kind - 1) & ~(Py_ssize_t)(kind - 1); /* each width at its alignment */
    if (grow((void **)&table->arena, &table->arena_capacity, table->arena_size + value->size * kind + 1, 1) < 0) {
        return -1;
    }
    char *stored = table->arena + table->arena_size;
    for (Py_ssize_t index = 0; index < value->size; index++) {
        PyUnicode_WRITE(kind, stored, index, BUF_AT(value->chars, value->from + index));
    }
    int32_t index = (int32_t)table->size++;
    table->distinct[index] = (Distinct){table->arena_size | ((int64_t)kind << 56), (uint32_t)hash, (int32_t)value->size, -1, 0};
    table->arena_size += value->size * kind;
    size_t mask = (size_t)table->slot_count - 1;
    size_t slot = (size_t)hash & mask;
    while (table->slots[slot] >= 0) {
        slot = (slot + 1) & mask;
    }
    table->slots[slot] = index;
    return index;
}

static PyObject *table_value(const Table *table, int32_t index) {
    const Distinct *entry = &table->distinct[index];
    if (entry->size == 0) {
        return PyUnicode_New(0, 0);
    }
    return PyUnicode_FromKindAndData(KIND_OF(entry), table->arena + AT_OF(entry), entry->size);
}

/* The engine's merge --------------------------------------------------------------------------------------------- */

/* The key's array: each place names its value (an index in the table, -1 once taken out), the place before it with
 * the same value (so '-' takes the last equal one at once) and its line (REF: the text and the line). Every place on
 * a value's chain is in the array: only a chain's head is ever taken out. */
typedef struct {
    int32_t value;
    int32_t previous;
    int64_t ref;
} Place;

/* A line of the hierarchy as one number: the text's index and the line in it. */
#define REF(document, line) (((int64_t)(document) << 40) | (int64_t)(line))
#define REF_DOCUMENT(ref) ((ref) >> 40)
#define REF_LINE(ref) ((ref) & (((int64_t)1 << 40) - 1))

/* Leftist heaps of places, in one pool: a value's places (the greatest on top: '-' takes the last equal value) and
 * a struct token's places (the least on top: a line with the token replaces the first value that has it). Entries
 * are checked when they come to the top (a place may have been taken out or given another value since). */
typedef struct {
    int32_t place;
    int32_t left;
    int32_t right;
    int32_t rank;
} Node;

typedef struct {
    Node *nodes;
    Py_ssize_t size;
    Py_ssize_t capacity;
} Heaps;

static inline int32_t heap_rank(const Heaps *heaps, int32_t node) { return node < 0 ? 0 : heaps->nodes[node].rank; }

/* Merges two heaps (greatest: the greatest place on top, else the least); the depth of the recursion is bounded
 * by the two right spines, at most 2 log2 of the heaps' sizes. */
static int32_t heap_merge(Heaps *heaps, int32_t a, int32_t b, int greatest) {
    if (a < 0) {
        return b;
    }
    if (b < 0) {
        return a;
    }
    Node *nodes = heaps->nodes;
    if (greatest ? nodes[b].place > nodes[a].place : nodes[b].place < nodes[a].place) {
        int32_t swap = a;
        a = b;
        b = swap;
    }
    int32_t right = heap_merge(heaps, heaps->nodes[a].right, b, greatest);
    nodes = heaps->nodes;
    nodes[a].right = right;
    if (heap_rank(heaps, nodes[a].left) < heap_rank(heaps, right)) {
        nodes[a].right = nodes[a].left;
        nodes[a].left = right;
    }
    nodes[a].rank = heap_rank(heaps, nodes[a].right) + 1;
    return a;
}

/* Pushes a place on a heap; the new root, or -2 on an error. */
static int32_t heap_push(Heaps *heaps, int32_t root, int32_t place, int greatest) {
    if (heaps->size >= INT32_MAX - 1) {
        PyErr_SetString(PyExc_MemoryError, "too many heap entries");
        return -2;
    }
    if (grow((void **)&heaps->nodes, &heaps->capacity, heaps->size + 1, sizeof(Node)) < 0) {
        return -2;
    }
    int32_t node = (int32_t)heaps->size++;
    heaps->nodes[node] = (Node){place, -1, -1, 1};
    return heap_merge(heaps, root, node, greatest);
}

static inline int32_t heap_pop(Heaps *heaps, int32_t root, int greatest) {
    return heap_merge(heaps, heaps->nodes[root].left, heaps->nodes[root].right, greatest);
}

#define STRUCT_WORK_DEFAULT 1000000

typedef struct {
    Place *places;
    Py_ssize_t size;
    Py_ssize_t capacity;
    Table table;
    Py_ssize_t live;
    int64_t document;
    /* '@' struct keys (HandleArrayOfKeyedStructsCommand, unreal_ini._StructMerge): from the first '@' line on, a
     * place's "previous" is its token's index, and a value's "head" the root of its heap of places */
    int structs;
    int has_struct_key;
    Buffer struct_key;       /* as written */
    PyObject *struct_match;  /* struct key + "=", lowered (str.lower()) */
    Py_ssize_t match_size;   /* the length of struct key + "=" as written */
    int64_t struct_ref;      /* the line of the struct key in use */
    int tokens_pending;      /* a new struct key: the tokens are indexed at their first use */
    Table tokens;
    Heaps heaps;
    Buffer scratch;
    int64_t work;
    int64_t work_limit;
    int refused;
} EngineMerge;

static void engine_reset(EngineMerge *merge) {
    table_reset(&merge->table);
    merge->size = 0;
    merge->live = 0;
    if (merge->structs) {
        table_reset(&merge->tokens);
        merge->heaps.size = 0;
        if (merge->has_struct_key) {
            merge->tokens_pending = 0; /* clear() makes an empty index, not one to be made */
        }
    }
}

static void engine_free(EngineMerge *merge) {
    table_free(&merge->table);
    table_free(&merge->tokens);
    PyMem_Free(merge->places);
    PyMem_Free(merge->heaps.nodes);
    PyMem_Free(merge->struct_key.data);
    PyMem_Free(merge->scratch.data);
    Py_XDECREF(merge->struct_match);
}

static int engine_append(EngineMerge *merge, int32_t value, int64_t ref) {
    if (merge->size >= INT32_MAX - 1) {
        PyErr_SetString(PyExc_MemoryError, "too many values");
        return -1;
    }
    if (grow((void **)&merge->places, &merge->capacity, merge->size + 1, sizeof(Place)) < 0) {
        return -1;
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

/* '@' struct keys --------------------------------------------------------------------------------------------- */

/* The token after "Key=" in a value (ExtractPropertyValue; unreal_ini._struct_token): where "key=" is found in the
 * lowered value (any case), then a quoted string or a run of word characters (re's \w). Its span in the value
 * (*size 0: none); -1 on an error. */
static int struct_token(EngineMerge *merge, const Span *value, Py_ssize_t *from, Py_ssize_t *size) {
    *from = 0;
    *size = 0;
    Py_ssize_t length = value->size;
    Py_ssize_t match_length = PyUnicode_GET_LENGTH(merge->struct_match);
    Py_ssize_t at = -1;
    int ascii = PyUnicode_IS_ASCII(merge->struct_match) && match_length <= 64;
    for (Py_ssize_t index = 0; ascii && index < length; index++) {
        ascii = BUF_AT(value->chars, value->from + index) < 128;
    }
    if (ascii) { /* lowered in place of each character; a match of at most 64 characters: a linear search */
        const Py_UCS1 *match = PyUnicode_1BYTE_DATA(merge->struct_match);
        for (Py_ssize_t index = 0; at < 0 && index + match_length <= length; index++) {
            Py_ssize_t inner = 0;
            while (inner < match_length) {
                Py_UCS4 c = BUF_AT(value->chars, value->from + index + inner);
                if (((c >= 'A' && c <= 'Z') ? c + 32 : c) != match[inner]) {
                    break;
                }
                inner++;
            }
            if (inner == match_length) {
                at = index;
            }
        }
    } else {
        PyObject *text = length ? PyUnicode_FromKindAndData(value->chars->kind,
                                                            value->chars->data + value->from * value->chars->kind,
                                                            length)
                                : PyUnicode_New(0, 0);
        if (text == NULL) {
            return -1;
        }
        PyObject *lowered_text = PyObject_CallMethod(text, "lower", NULL);
        Py_DECREF(text);
        if (lowered_text == NULL) {
            return -1;
        }
        at = PyUnicode_Find(lowered_text, merge->struct_match, 0, PyUnicode_GET_LENGTH(lowered_text), 1);
        Py_DECREF(lowered_text);
        if (at == -2) {
            return -1;
        }
    }
    if (at < 0) {
        return 0;
    }
    Py_ssize_t start = at + merge->match_size; /* the length as written, as _struct_token counts it */
    if (start >= length) {
        return 0;
    }
    if (BUF_AT(value->chars, value->from + start) == '"') {
        Py_ssize_t end = start + 1;
        while (end < length && BUF_AT(value->chars, value->from + end) != '"') {
            end++;
        }
        *from = start + 1;
        *size = end - start - 1;
        return 0;
    }
    Py_ssize_t end = start;
    while (end < length) {
        Py_UCS4 c = BUF_AT(value->chars, value->from + end);
        if (!(Py_UNICODE_ISALNUM(c) || c == '_')) {
            break;
        }
        end++;
    }
    *from = start;
    *size = end - start;
    return 0;
}

/* The value a table holds, as a span. */
static Span table_span(const Table *table, int32_t index, Buffer *view) {
    const Distinct *entry = &table->distinct[index];
    *view = (Buffer){KIND_OF(entry), table->arena + AT_OF(entry), entry->size, entry->size};
    return (Span){view, 0, entry->size};
}

static inline int tokens_in_use(const EngineMerge *merge) {
    return merge->has_struct_key && merge->struct_key.size > 0 && !merge->tokens_pending;
}

/* A place takes a value: its value's heap, and its token's when the tokens are indexed. */
static int struct_place(EngineMerge *merge, int32_t place, int32_t value) {
    merge->places[place].value = value;
    merge->places[place].previous = -1;
    Distinct *entry = &merge->table.distinct[value];
    int32_t root = heap_push(&merge->heaps, entry->head, place, 1);
    if (root == -2) {
        return -1;
    }
    merge->table.distinct[value].head = root;
    if (!tokens_in_use(merge)) {
        return 0;
    }
    Buffer view;
    Span stored = table_span(&merge->table, value, &view);
    Py_ssize_t from = 0;
    Py_ssize_t size = 0;
    if (struct_token(merge, &stored, &from, &size) < 0) {
        return -1;
    }
    if (size == 0) {
        return 0;
    }
    Span token = {&view, from, size};
    int32_t index = table_intern(&merge->tokens, &token, span_hash(&token));
    if (index < 0) {
        return -1;
    }
    merge->places[place].previous = index;
    root = heap_push(&merge->heaps, merge->tokens.distinct[index].head, place, 0);
    if (root == -2) {
        return -1;
    }
    merge->tokens.distinct[index].head = root;
    return 0;
}

static int struct_append(EngineMerge *merge, int32_t value, int64_t ref) {
    if (merge->size >= INT32_MAX - 1) {
        PyErr_SetString(PyExc_MemoryError, "too many values");
        return -1;
    }
    if (grow((void **)&merge->places, &merge->capacity, merge->size + 1, sizeof(Place)) < 0) {
        return -1;
    }
    int32_t place = (int32_t)merge->size++;
    merge->places[place].ref = ref;
    merge->table.distinct[value].count++;
    merge->live++;
    return struct_place(merge, place, value);
}

/* From the first '@' line: every value's chain becomes a heap of its places. */
static int struct_enter(EngineMerge *merge) {
    merge->structs = 1;
    for (Py_ssize_t index = 0; index < merge->table.size; index++) {
        merge->table.distinct[index].head = -1;
    }
    for (Py_ssize_t place = 0; place < merge->size; place++) {
        int32_t value = merge->places[place].value;
        merge->places[place].previous = -1;
        if (value >= 0) {
            int32_t root = heap_push(&merge->heaps, merge->table.distinct[value].head, (int32_t)place, 1);
            if (root == -2) {
                return -1;
            }
            merge->table.distinct[value].head = root;
        }
    }
    return 0;
}

/* A new struct key's first use: every value there is looked at again (the work Unreal does at each line, which
 * buildver bounds), and the tokens indexed. 1: refused. */
static int struct_index(EngineMerge *merge) {
    merge->tokens_pending = 0;
    merge->work += merge->live;
    if (merge->work > merge->work_limit) {
        merge->refused = 1;
        return 1;
    }
    table_reset(&merge->tokens);
    for (Py_ssize_t place = 0; place < merge->size; place++) {
        int32_t value = merge->places[place].value;
        if (value < 0) {
            continue;
        }
        Buffer view;
        Span stored = table_span(&merge->table, value, &view);
        Py_ssize_t from = 0;
        Py_ssize_t size = 0;
        merge->places[place].previous = -1;
        if (struct_token(merge, &stored, &from, &size) < 0) {
            return -1;
        }
        if (size == 0) {
            continue;
        }
        Span token = {&view, from, size};
        int32_t index = table_intern(&merge->tokens, &token, span_hash(&token));
        if (index < 0) {
            return -1;
        }
        merge->places[place].previous = index;
        int32_t root = heap_push(&merge->heaps, merge->tokens.distinct[index].head, (int32_t)place, 0);
        if (root == -2) {
            return -1;
        }
        merge->tokens.distinct[index].head = root;
    }
    return 0;
}

static int struct_key_set(EngineMerge *merge, const KeyLine *line) {
    Buffer *key = &merge->struct_key;
    int same = merge->has_struct_key && key->size == line->value_size;
    for (Py_ssize_t index = 0; same && index < key->size; index++) {
        same = BUF_AT(key, index) == BUF_AT(line->chars, line->from + index);
    }
    if (same) {
        return 0;
    }
    key->size = 0;
    for (Py_ssize_t index = 0; index < line->value_size; index++) {
        if (buffer_add(key, BUF_AT(line->chars, line->from + index)) < 0) {
            return -1;
        }
    }
    PyObject *written = key->size ? PyUnicode_FromKindAndData(key->kind, key->data, key->size) : PyUnicode_New(0, 0);
    if (written == NULL) {
        return -1;
    }
    PyObject *match = PyUnicode_FromFormat("%U=", written);
    Py_DECREF(written);
    if (match == NULL) {
        return -1;
    }
    PyObject *lowered_match = PyObject_CallMethod(match, "lower", NULL);
    Py_DECREF(match);
    if (lowered_match == NULL) {
        return -1;
    }
    Py_XSETREF(merge->struct_match, lowered_match);
    merge->match_size = key->size + 1;
    merge->has_struct_key = 1;
    merge->struct_ref = REF(merge->document, line->line);
    merge->tokens_pending = 1;
    return 0;
}

static void struct_trim(EngineMerge *merge) {
    while (merge->size > 0 && merge->places[merge->size - 1].value < 0) {
        merge->size--;
    }
}

/* One line of the key under struct keys (unreal_ini._StructMerge.run). */
static int struct_line(EngineMerge *merge, const KeyLine *line) {
    char action = line->action;
    if (action == '@') {
        return struct_key_set(merge, line);
    }
    if (action == '*') {
        return 0;
    }
    if (action == '!') {
        engine_reset(merge);
        return 0;
    }
    Span value = {line->chars, line->from, line->value_size};
    uint64_t hash = span_hash(&value);
    int64_t ref = REF(merge->document, line->line);
    if ((action == 0 || action == '+' || action == '.') && merge->has_struct_key && merge->struct_key.size > 0) {
        Py_ssize_t from = 0;
        Py_ssize_t size = 0;
        if (struct_token(merge, &value, &from, &size) < 0) {
            return -1;
        }
        if (size > 0) {
            if (merge->tokens_pending) {
                int indexed = struct_index(merge);
                if (indexed != 0) {
                    return indexed;
                }
            }
            Span token = {line->chars, line->from + from, size};
            int32_t found = table_find(&merge->tokens, &token, span_hash(&token));
            if (found >= 0) {
                Distinct *entry = &merge->tokens.distinct[found];
                while (entry->head >= 0) {
                    int32_t place = merge->heaps.nodes[entry->head].place;
                    if (place < merge->size && merge->places[place].value >= 0 && merge->places[place].previous == found) {
                        break;
                    }
                    entry->head = heap_pop(&merge->heaps, entry->head, 0);
                }
                if (entry->head >= 0) { /* the first value with the token is replaced in place */
                    int32_t place = merge->heaps.nodes[entry->head].place;
                    int32_t index = table_intern(&merge->table, &value, hash);
                    if (index < 0) {
                        return -1;
                    }
                    merge->table.distinct[merge->places[place].value].count--;
                    merge->table.distinct[index].count++;
                    merge->places[place].value = index;
                    merge->places[place].ref = ref;
                    int32_t root = heap_push(&merge->heaps, merge->table.distinct[index].head, place, 1);
                    if (root == -2) {
                        return -1;
                    }
                    merge->table.distinct[index].head = root;
                    return 0;
                }
            }
        }
    }
    if (action == '-') {
        int32_t found = table_find(&merge->table, &value, hash);
        if (found < 0) {
            return 0;
        }
        Distinct *entry = &merge->table.distinct[found];
        while (entry->head >= 0) {
            int32_t place = merge->heaps.nodes[entry->head].place;
            if (place < merge->size && merge->places[place].value == found) {
                merge->places[place].value = -1;
                entry->count--;
                merge->live--;
                entry->head = heap_pop(&merge->heaps, entry->head, 1);
                struct_trim(merge);
                return 0;
            }
            entry->head = heap_pop(&merge->heaps, entry->head, 1);
        }
        return 0;
    }
    int32_t index = table_intern(&merge->table, &value, hash);
    if (index < 0) {
        return -1;
    }
    if (action == '+' && merge->table.distinct[index].count > 0) {
        return 0;
    }
    if (action == 0 && merge->size > 0) { /* the last value replaced in place */
        int32_t place = (int32_t)merge->size - 1;
        merge->table.distinct[merge->places[place].value].count--;
        merge->table.distinct[index].count++;
        merge->places[place].ref = ref;
        return struct_place(merge, place, index);
    }
    return struct_append(merge, index, ref);
}

static int engine_line_merged(void *context, const KeyLine *line) {
    EngineMerge *merge = context;
    char action = line->action;
    if (action == '@' && !merge->structs && struct_enter(merge) < 0) {
        return -1;
    }
    if (merge->structs) {
        return struct_line(merge, line);
    }
    if (action == '*') {
        return 0; /* per-object struct keys: not modelled, the line passed over (as unreal_ini does) */
    }
    if (action == '!') {
        engine_reset(merge);
        return 0;
    }
    Span value = {line->chars, line->from, line->value_size};
    uint64_t hash = span_hash(&value);
    if (action == '-') {
        int32_t found = table_find(&merge->table, &value, hash);
        if (found >= 0 && merge->table.distinct[found].count > 0) {
            engine_take_out(merge, found);
        }
        return 0;
    }
    int32_t index = table_intern(&merge->table, &value, hash);
    if (index < 0) {
        return -1;
    }
    if (action == '+' && merge->table.distinct[index].count > 0) {
        return 0; /* AddUnique: already there */
    }
    if (action == 0 && merge->live > 0) { /* Find gives the last pair: its value replaced */
        engine_take_out(merge, merge->places[merge->size - 1].value);
    }
    return engine_append(merge, index, REF(merge->document, line->line));
}

/* UnrealBuildTool's merge --------------------------------------------------------------------------------------- */

/* ConfigHierarchySection's list of values: each place names its value as written (-1 once removed), the value in
 * lower case (unreal_ini compares '-' lines with str.lower()) and the place before it with that lowered value, so
 * that a '-' line takes out every one of them by its chain; a place is taken out once. When only the first value
 * is asked, equal lines in a row are one place (a '-' line takes all of them or none). */
typedef struct {
    int32_t value;
    int32_t lowered;
    int32_t previous;
    int64_t ref;
} UbtPlace;

typedef struct {
    UbtPlace *places;
    Py_ssize_t size;
    Py_ssize_t capacity;
    Table values;
    Table lowered;
    Buffer scratch;
    int everything;
    int64_t document;
} UbtMerge;

static void ubt_clear(UbtMerge *merge) {
    merge->size = 0;
    table_reset(&merge->values);
    table_reset(&merge->lowered);
}

static void ubt_free(UbtMerge *merge) {
    table_free(&merge->values);
    table_free(&merge->lowered);
    PyMem_Free(merge->places);
    PyMem_Free(merge->scratch.data);
}

/* The index of a value in lower case in the table of lowered values, added when new; -1 on an error. ASCII is
 * lowered here; any other value by str.lower(), as unreal_ini lowers it. */
static int32_t ubt_lowered(Buffer *scratch, Table *table, const Span *value, int add, int32_t *index) {
    scratch->size = 0;
    PyObject *object = NULL;
    Buffer view = {0};
    Span lowered = {scratch, 0, value->size};
    int ascii = 1;
    for (Py_ssize_t at = 0; at < value->size; at++) {
        Py_UCS4 c = BUF_AT(value->chars, value->from + at);
        if (c >= 128) {
            ascii = 0;
            break;
        }
        if (buffer_add(scratch, (c >= 'A' && c <= 'Z') ? c + 32 : c) < 0) {
            return -1;
        }
    }
    if (!ascii) {
        PyObject *text = PyUnicode_FromKindAndData(value->chars->kind, value->chars->data + value->from * value->chars->kind,
                                                   value->size);
        if (text == NULL) {
            return -1;
        }
        object = PyObject_CallMethod(text, "lower", NULL);
        Py_DECREF(text);
        if (object == NULL) {
            return -1;
        }
        view.kind = PyUnicode_KIND(object);
        view.data = PyUnicode_DATA(object);
        view.size = view.capacity = PyUnicode_GET_LENGTH(object);
        lowered = (Span){&view, 0, view.size};
    }
    uint64_t hash = span_hash(&lowered);
    *index = add ? table_intern(table, &lowered, hash) : table_find(table, &lowered, hash);
    Py_XDECREF(object);
    return (add && *index < 0) ? -1 : 0;
}

static int ubt_line_merged(void *context, const KeyLine *line) {
    UbtMerge *merge = context;
    char action = line->action;
    if (action == '!') {
        ubt_clear(merge);
        return 0;
    }
    Span value = {line->chars, line->from, line->value_size};
    int32_t lowered = -1;
    if (action == '-') {
        if (ubt_lowered(&merge->scratch, &merge->lowered, &value, 0, &lowered) < 0) {
            return -1;
        }
        if (lowered >= 0) {
            Distinct *entry = &merge->lowered.distinct[lowered];
            for (int32_t place = entry->head; place >= 0; place = merge->places[place].previous) {
                merge->places[place].value = -1;
            }
            entry->head = -1;
            entry->count = 0;
        }
        return 0;
    }
    if (action == 0) { /* a plain line replaces every value */
        ubt_clear(merge);
    }
    if (ubt_lowered(&merge->scratch, &merge->lowered, &value, 1, &lowered) < 0) {
        return -1;
    }
    int32_t written = table_intern(&merge->values, &value, span_hash(&value));
    if (written < 0) {
        return -1;
    }
    Distinct *entry = &merge->lowered.distinct[lowered];
    if (!merge->everything && merge->size > 0 && entry->head == merge->size - 1 &&
        merge->places[merge->size - 1].value == written) {
        return 0; /* the same value again: one place with the first line */
    }
    if (merge->size >= INT32_MAX - 1) {
        PyErr_SetString(PyExc_MemoryError, "too many values");
        return -1;
    }
    if (grow((void **)&merge->places, &merge->capacity, merge->size + 1, sizeof(UbtPlace)) < 0) {
        return -1;
    }
    merge->places[merge->size] =
        (UbtPlace){written, lowered, entry->head, REF(merge->document, line->line)};
    entry->head = (int32_t)merge->size;
    entry->count++;
    merge->size++;
    return 0;
}

/* Adds (value, text index, offset) to the list of values found. */
static int found_add(PyObject *found, PyObject *value, int64_t ref) {
    if (value == NULL) {
        return -1;
    }
    PyObject *item = Py_BuildValue("(NLL)", value, (long long)REF_DOCUMENT(ref), (long long)REF_LINE(ref));
    if (item == NULL) {
        return -1;
    }
    int failed = PyList_Append(found, item) < 0;
    Py_DECREF(item);
    return failed ? -1 : 0;
}

/* The single value UnrealBuildTool reads (TryGetValue: the first), without the list: two passes, keeping only
 * the values '-' lines name. The first finds the last plain or '!' line (the lines before it count for nothing)
 * and, for each value a '-' line names after it (in lower case), its last such line; the second takes the first
 * value set or added from the last reset on that no later '-' line names. */
typedef struct {
    int pass;
    int64_t sequence; /* the key line's number in the hierarchy */
    int64_t last_reset;
    Table removed; /* lowered values; head and count: the number of the last '-' line, low and high half */
    Buffer scratch;
    PyObject *found;
    int64_t document;
} UbtFirst;

static int ubt_first_line(void *context, const KeyLine *line) {
    UbtFirst *first = context;
    int64_t sequence = first->sequence++;
    char action = line->action;
    Span value = {line->chars, line->from, line->value_size};
    int32_t lowered = -1;
    if (first->pass == 1) {
        if (action == 0 || action == '!') {
            first->last_reset = sequence;
            table_reset(&first->removed); /* the '-' lines before it name values it took out already */
        } else if (action == '-') {
            if (ubt_lowered(&first->scratch, &first->removed, &value, 1, &lowered) < 0) {
                return -1;
            }
            first->removed.distinct[lowered].head = (int32_t)(sequence & 0x7FFFFFFF);
            first->removed.distinct[lowered].count = (int32_t)(sequence >> 31);
        }
        return 0;
    }
    if (sequence < first->last_reset || (action != 0 && action != '+')) {
        return 0;
    }
    if (ubt_lowered(&first->scratch, &first->removed, &value, 0, &lowered) < 0) {
        return -1;
    }
    if (lowered >= 0) {
        const Distinct *entry = &first->removed.distinct[lowered];
        if ((((int64_t)entry->count << 31) | entry->head) > sequence) {
            return 0; /* a '-' line of its value comes after it */
        }
    }
    PyObject *text = line->value_size ? PyUnicode_FromKindAndData(line->chars->kind,
                                                                 line->chars->data + line->from * line->chars->kind,
                                                                 line->value_size)
                                      : PyUnicode_New(0, 0);
    if (found_add(first->found, text, REF(first->document, line->line)) < 0) {
        return -1;
    }
    return 1;
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

/* Walks each text of a hierarchy in turn, telling the merge which one it reads (*document); stops at the first walk
 * that stops (1: the merge has its answer, or refuses) or fails (-1). */
static int walk_texts(PyObject *sequence, const Names *names, Walker walk, LineHandler handler, void *context,
                      int64_t *document) {
    Py_ssize_t count = PySequence_Fast_GET_SIZE(sequence);
    for (Py_ssize_t index = 0; index < count; index++) {
        Text text;
        if (text_of(PySequence_Fast_GET_ITEM(sequence, index), &text) < 0) {
            return -1;
        }
        *document = index;
        int walked = walk(&text, names, handler, NULL, context);
        if (walked != 0) {
            return walked;
        }
    }
    return 0;
}

static PyObject *native_key_values(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *texts;
    PyObject *section;
    PyObject *key;
    int ubt;
    int everything;
    long long work_limit = STRUCT_WORK_DEFAULT;
    Names names;
    if (!PyArg_ParseTuple(args, "OUUpp|L", &texts, &section, &key, &ubt, &everything, &work_limit)) {
        return NULL;
    }
    if (names_read(&names, section, key) < 0) {
        return NULL;
    }
    PyObject *sequence = PySequence_Fast(texts, "texts must be a sequence of str");
    if (sequence == NULL) {
        names_free(&names);
        return NULL;
    }
    Py_ssize_t count = PySequence_Fast_GET_SIZE(sequence);
    if (count >= ((Py_ssize_t)1 << 22)) {
        Py_DECREF(sequence);
        names_free(&names);
        PyErr_SetString(PyExc_ValueError, "too many texts");
        return NULL;
    }
    PyObject *result = NULL;
    if (!ubt) {
        EngineMerge merge = {0};
        merge.work_limit = work_limit;
        if (walk_texts(sequence, &names, engine_walk, engine_line_merged, &merge, &merge.document) < 0) {
            goto engine_done;
        }
        if (merge.refused) { /* the struct key's line: the caller refuses the file */
            result = Py_BuildValue("(LL)", (long long)REF_DOCUMENT(merge.struct_ref), (long long)REF_LINE(merge.struct_ref));
            goto engine_done;
        }
        result = PyList_New(0);
        if (result == NULL) {
            goto engine_done;
        }
        for (Py_ssize_t index = everything ? 0 : merge.size - 1; index >= 0 && index < merge.size; index++) {
            Place *place = &merge.places[index];
            if (place->value >= 0 && found_add(result, table_value(&merge.table, place->value), place->ref) < 0) {
                Py_CLEAR(result);
                goto engine_done;
            }
        }
    engine_done:
        engine_free(&merge);
    } else if (!everything) {
        UbtFirst first = {0};
        first.found = PyList_New(0);
        if (first.found == NULL) {
            goto first_done;
        }
        for (first.pass = 1; first.pass <= 2 && !(first.pass == 2 && first.sequence == 0); first.pass++) {
            first.sequence = 0; /* the second pass only when the first met a line of the key */
            if (walk_texts(sequence, &names, ubt_walk, ubt_first_line, &first, &first.document) < 0) {
                goto first_done;
            }
        }
        result = Py_NewRef(first.found);
    first_done:
        Py_XDECREF(first.found);
        table_free(&first.removed);
        PyMem_Free(first.scratch.data);
    } else {
        UbtMerge merge = {0};
        merge.everything = everything;
        if (walk_texts(sequence, &names, ubt_walk, ubt_line_merged, &merge, &merge.document) < 0) {
            goto ubt_done;
        }
        result = PyList_New(0);
        if (result == NULL) {
            goto ubt_done;
        }
        for (Py_ssize_t index = 0; index < merge.size; index++) {
            UbtPlace *place = &merge.places[index];
            if (place->value < 0) {
                continue;
            }
            if (found_add(result, table_value(&merge.values, place->value), place->ref) < 0) {
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
    names_free(&names);
    return result;
}

/* key_line: the key's last line in the section. */
typedef struct {
    char action;
    int structs;
    int found;
    Py_ssize_t start;
    Py_ssize_t end;
    Py_ssize_t line;
    Py_ssize_t last_line;
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
    last->line = line->line;
    last->last_line = line->last_line;
    last->value.size = 0;
    for (Py_ssize_t index = 0; index < line->value_size; index++) {
        if (buffer_add(&last->value, BUF_AT(line->chars, line->from + index)) < 0) {
            return -1;
        }
    }
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
    if (text_of(object, &text) < 0 || names_read(&names, section, key) < 0) {
        return NULL;
    }
    LastLine last = {0};
    Walker walk = ubt ? ubt_walk : engine_walk;
    PyObject *result = NULL;
    if (walk(&text, &names, last_line_kept, NULL, &last) < 0) {
        goto done;
    }
    if (!last.found) {
        result = Py_BuildValue("(OO)", Py_None, last.structs ? Py_True : Py_False);
        goto done;
    }
    char action[2] = {last.action, 0};
    PyObject *value = last.value.size ? PyUnicode_FromKindAndData(last.value.kind, last.value.data, last.value.size)
                                      : PyUnicode_New(0, 0);
    if (value == NULL) {
        goto done;
    }
    result = Py_BuildValue("((sNnnnn)O)", action, value, last.start, last.end, last.line, last.last_line,
                           last.structs ? Py_True : Py_False);
done:
    PyMem_Free(last.value.data);
    names_free(&names);
    return result;
}

/* section_headers: the section's last header, and the first header after it on a later line. */
typedef struct {
    const Text *text;
    int has_last;
    Py_ssize_t last_start;
    Py_ssize_t last_end;
    Py_ssize_t last_line;
    int has_following;
    Py_ssize_t following;
    Py_ssize_t following_line;
    int changes; /* another section starts on the last header's line ('[S]|[T]') */
    Py_ssize_t scanned;
    int broken; /* a line break between the last header's start and scanned */
} Sections;

static int sections_header(void *context, int asked, Py_ssize_t start, Py_ssize_t end, Py_ssize_t line) {
    Sections *sections = context;
    if (asked) {
        *sections = (Sections){sections->text, 1, start, end, line, 0, 0, 0, 0, start, 0};
        return 0;
    }
    if (!sections->has_last || sections->has_following) {
        return 0;
    }
    while (!sections->broken && sections->scanned < start) {
        sections->broken = is_break(AT(sections->text, sections->scanned));
        sections->scanned++;
    }
    if (sections->broken) {
        sections->has_following = 1;
        sections->following = start;
        sections->following_line = line;
    } else {
        sections->changes = 1;
    }
    return 0;
}

static PyObject *native_section_headers(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *object;
    PyObject *section;
    int ubt;
    Names names;
    Text text;
    if (!PyArg_ParseTuple(args, "UUp", &object, &section, &ubt)) {
        return NULL;
    }
    if (text_of(object, &text) < 0 || names_read(&names, section, section) < 0) {
        return NULL;
    }
    Sections sections = {0};
    sections.text = &text;
    Walker walk = ubt ? ubt_walk : engine_walk;
    int walked = walk(&text, &names, NULL, sections_header, &sections);
    names_free(&names);
    if (walked < 0) {
        return NULL;
    }
    if (!sections.has_last) {
        Py_RETURN_NONE;
    }
    PyObject *changes = sections.changes ? Py_True : Py_False;
    if (!sections.has_following) {
        return Py_BuildValue("(nnnOO)", sections.last_start, sections.last_end, sections.last_line, Py_None, changes);
    }
    return Py_BuildValue("(nnn(nn)O)", sections.last_start, sections.last_end, sections.last_line,
                         sections.following_line, sections.following, changes);
}

static PyMethodDef ini_methods[] = {
    {"section_headers", native_section_headers, METH_VARARGS,
     "section_headers(text, section, ubt): (start, text end and line of the section's last header, (line, start) "
     "of the first header on a later line or None, whether another header follows on the last one's line), or "
     "None."},
    {"key_values", native_key_values, METH_VARARGS,
     "key_values(texts, section, key, ubt, everything, struct_work=1000000): [(value, text index, line), ...] "
     "merged as the reader merges them (everything false: the single value read), or (text index, line) of the "
     "'@' struct key whose values would be looked at again past struct_work."},
    {"key_line", native_key_line, METH_VARARGS,
     "key_line(text, section, key, ubt): ((prefix, value, line start, text end, line, last line) or None, whether "
     "an '@' line is there)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef ini_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_ini_native",
    .m_doc = "The optional compiled core of the config-file readers (see _ini_native.c).",
    .m_size = -1,
    .m_methods = ini_methods,
};

PyMODINIT_FUNC PyInit__ini_native(void) {
    const char *special = "\"|\\{}/\r\n";
    for (const char *c = special; *c; c++) {
        SPECIAL[(unsigned char)*c] = 1;
    }
    BREAKS['\r'] = BREAKS['\n'] = 1;
    return PyModule_Create(&ini_module);
}
