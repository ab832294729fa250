/* bin/fxreplay, bin/ffmpeg and bin/ffprobe of the self-contained tarball (scripts/package.sh tarball), one static
 * program under three names. A program's interpreter (PT_INTERP) must be an absolute path, so the real binaries in
 * libexec/ cannot name the tarball's own dynamic loader; this launcher finds the tarball's folder from
 * /proc/self/exe (symbolic links to it resolved) and runs
 *     ROOT/lib/ld-linux-x86-64.so.2 --inhibit-cache --argv0 ARGV0 ROOT/libexec/NAME ARGS…
 * The real binaries' RPATH, $ORIGIN/../lib, makes every library come from ROOT/lib; --inhibit-cache keeps the
 * host's /etc/ld.so.cache out. FXREPLAY_BUNDLE=ROOT tells fxreplay where its font is and that it is this build
 * (Sources/ReplayKitless/Support/BundledBuild.swift). Built with gcc -static, so it needs nothing from the host. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fail(const char *what, const char *path) {
    fprintf(stderr, "fxreplay launcher: %s %s: %s\n", what, path, strerror(errno));
    return 127;
}

int main(int argc, char **argv) {
    char self[PATH_MAX], loader[PATH_MAX], program[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0) return fail("cannot read", "/proc/self/exe (is /proc mounted?)");
    self[length] = '\0';
    /* self is ROOT/bin/NAME */
    char *slash = strrchr(self, '/');
    if (!slash) return fail("unexpected path", self);
    *slash = '\0';
    const char *name = slash + 1;
    char *bin = strrchr(self, '/');
    if (!bin) return fail("unexpected path", self);
    *bin = '\0';
    const char *root = self[0] ? self : "/";
    if (snprintf(loader, sizeof loader, "%s/lib/ld-linux-x86-64.so.2", self) >= (int)sizeof loader ||
        snprintf(program, sizeof program, "%s/libexec/%s", self, name) >= (int)sizeof program) {
        errno = ENAMETOOLONG;
        return fail("path too long:", root);
    }
    if (setenv("FXREPLAY_BUNDLE", root, 1) != 0) return fail("cannot set", "FXREPLAY_BUNDLE");

    char **arguments = calloc((size_t)argc + 6, sizeof *arguments);
    if (!arguments) return fail("out of memory for", "arguments");
    int count = 0;
    arguments[count++] = loader;
    arguments[count++] = "--inhibit-cache";
    arguments[count++] = "--argv0";
    arguments[count++] = argc > 0 ? argv[0] : (char *)name;
    arguments[count++] = program;
    for (int i = 1; i < argc; i++) arguments[count++] = argv[i];
    arguments[count] = NULL;
    execv(loader, arguments);
    return fail("cannot run", loader);
}
