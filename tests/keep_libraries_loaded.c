/* Linked into the MPI programs of sanitizer builds only (COLLBENCH_SANITIZE): dlclose
 * does nothing, so the modules the MPI stack loads (UCX's transports) stay mapped to
 * the end. Unloaded, their static data was gone before LeakSanitizer's scan, which then
 * reported what that data pointed to (about 1 KB per process) as leaked, from an
 * "<unknown module>" no suppression can name. Defined in the executable, this dlclose
 * comes before libc's for every library the process loads. */
int dlclose(void* handle) {
  (void)handle;
  return 0;
}
