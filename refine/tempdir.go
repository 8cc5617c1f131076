package refine

import "os"

// TempRoot is where checkers make their clusters' directories when the
// caller names none: /dev/shm when it is a writable directory, else the
// system's temporary directory. The brokers fsync their logs and checkpoint
// files as Kafka does; on a RAM-backed file system that costs nothing, which
// makes a replay about three times faster, and changes nothing the checker
// sees (crashes are simulated in the process: the kernel never loses a
// write).
func TempRoot(dir string) string {
	if dir != "" {
		return dir
	}
	const shm = "/dev/shm"
	if fi, err := os.Stat(shm); err == nil && fi.IsDir() {
		if f, err := os.CreateTemp(shm, "hwepoch-probe-"); err == nil {
			f.Close()
			os.Remove(f.Name())
			return shm
		}
	}
	return ""
}
