// SPDX-License-Identifier: MIT
/*
 * kc-lock FILE: POSIX byte-range locks through the kernel NFS client,
 * run in the guest by test.sh's "locks" step (built statically by
 * run.sh, as busybox has no fcntl locking). Two processes are two lock
 * owners; the client finds their conflicts in its own lock table before
 * it asks the server, which must grant, test and release what it is
 * asked: the parent write-locks [0, 100); the child's write lock on
 * [50, 60) must fail with EAGAIN, F_GETLK must describe the parent's
 * range, a read lock on [100, 110) must succeed; after the parent
 * unlocks [0, 100) the child's lock on [50, 60) succeeds.
 * Exit status 0 when every step did what it should; messages on stderr.
 *
 * kc-lock hold FILE READY SECONDS: open FILE, write "before\n", lock it
 * whole, create READY (the host then restarts the server), wait, then
 * write "after\n" through the same descriptor with fsync and unlock:
 * over NFSv4 that works only if the client reclaimed its open and its
 * lock in the restarted server's grace period (a lost lock makes the
 * descriptor's I/O fail).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int setlk(int fd, short type, off_t start, off_t len)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };

	return fcntl(fd, F_SETLK, &fl) == 0 ? 0 : -errno;
}

static int child(const char *path, int go, int done)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 50, .l_len = 10 };
	char c;
	int fd = open(path, O_RDWR), e;

	if (fd < 0 || read(go, &c, 1) != 1)
		return 10;
	e = setlk(fd, F_WRLCK, 50, 10);
	if (e != -EAGAIN && e != -EACCES) {
		fprintf(stderr, "child: write lock inside the parent's: %s\n", strerror(-e));
		return 11;
	}
	if (fcntl(fd, F_GETLK, &fl) < 0 || fl.l_type != F_WRLCK || fl.l_start != 0 ||
	    fl.l_len != 100) {
		fprintf(stderr, "child: F_GETLK type %d start %lld len %lld\n", fl.l_type,
			(long long)fl.l_start, (long long)fl.l_len);
		return 12;
	}
	e = setlk(fd, F_RDLCK, 100, 10);
	if (e) {
		fprintf(stderr, "child: read lock past the parent's: %s\n", strerror(-e));
		return 13;
	}
	if (write(done, "x", 1) != 1 || read(go, &c, 1) != 1)
		return 14;
	e = setlk(fd, F_WRLCK, 50, 10);
	if (e) {
		fprintf(stderr, "child: write lock after the parent's unlock: %s\n", strerror(-e));
		return 15;
	}
	close(fd);
	return 0;
}

static int hold(const char *path, const char *ready, unsigned int secs)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644), r;

	if (fd < 0 || write(fd, "before\n", 7) != 7 || fsync(fd) < 0 ||
	    fcntl(fd, F_SETLK, &fl) < 0) {
		perror("hold: open, write, fsync or lock");
		return 20;
	}
	r = open(ready, O_WRONLY | O_CREAT, 0644);
	if (r < 0 || close(r) < 0) {
		perror("hold: the ready file");
		return 21;
	}
	sleep(secs);
	if (pwrite(fd, "after\n", 6, 7) != 6 || fsync(fd) < 0) {
		perror("hold: write after the restart");
		return 22;
	}
	fl.l_type = F_UNLCK;
	if (fcntl(fd, F_SETLK, &fl) < 0 || close(fd) < 0) {
		perror("hold: unlock or close after the restart");
		return 23;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int go[2], done[2], fd, st, e;
	char c;
	pid_t pid;

	if (argc == 5 && strcmp(argv[1], "hold") == 0)
		return hold(argv[2], argv[3], (unsigned int)atoi(argv[4]));
	if (argc != 2 || pipe(go) || pipe(done))
		return 2;
	fd = open(argv[1], O_RDWR | O_CREAT, 0644);
	if (fd < 0 || (e = setlk(fd, F_WRLCK, 0, 100))) {
		fprintf(stderr, "parent: write lock [0, 100): %s\n", fd < 0 ? "open" : strerror(-e));
		return 3;
	}
	pid = fork();
	if (pid == 0)
		_exit(child(argv[1], go[0], done[1]));
	if (write(go[1], "x", 1) != 1 || read(done[0], &c, 1) != 1) {
		fprintf(stderr, "parent: the child stopped early\n");
		waitpid(pid, &st, 0);
		return WIFEXITED(st) ? WEXITSTATUS(st) : 4;
	}
	if ((e = setlk(fd, F_UNLCK, 0, 100))) {
		fprintf(stderr, "parent: unlock: %s\n", strerror(-e));
		return 5;
	}
	if (write(go[1], "x", 1) != 1 || waitpid(pid, &st, 0) != pid)
		return 6;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "parent: child exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return 7;
	}
	close(fd);
	return 0;
}
