/* Found through `-I inc` only: the preprocessed path must run the
 * preprocessor where `instrument` runs, as the user's compiler would. */
#define DEFINE_TWICE(name) static int name(int x) { return 2 * x; }
