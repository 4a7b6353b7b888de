// libsystemc.so brings its own main(), which calls sc_main(). Test executables
// use Catch2's main instead; this definition only satisfies the library's reference.
extern "C" int sc_main(int, char**) { return 0; }
