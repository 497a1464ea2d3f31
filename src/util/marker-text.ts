// What cloud-init writes into a semaphore or marker file (util.write_file(path, "%s: %s\n" % (os.getpid(), time()))):
// the writing process and the time; tools only test that the file exists.

export function markerText(now: Date = new Date()): string {
  return `${process.pid}: ${now.getTime() / 1000}\n`;
}
