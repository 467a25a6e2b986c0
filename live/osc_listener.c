/* The UDP socket a head tracker sends to, and the thread that reads it.
 * The socket is bound to one address: this machine's loopback unless the
 * command line names another, since whoever reaches the port turns the
 * listener's head, and a tracker is most often on the same machine.
 * Each packet is read into one buffer as large as a UDP payload can be
 * and handed to es_head_osc_packet at once; nothing is kept between
 * packets, so no stream of them, however fast or large, holds memory.
 * What the system drops while the thread is busy (its receive buffer
 * full) is counted where the system says so (SO_RXQ_OVFL).
 *
 * liblo's own server thread is not used: the liblo of Debian 12 (0.31)
 * binds every interface whatever it is asked, and queues bundles timed
 * for later without a limit. */
#define _GNU_SOURCE /* SO_RXQ_OVFL */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/rt_thread.h"
#include "head_private.h"

/* A UDP payload's most (65,507 over IPv4); a longer datagram (IPv6
 * jumbograms) arrives cut, and is counted as a bad packet. */
#define PACKET_MAX 65536
/* Packets read between two looks at the stop pipe: a flood faster than
 * the thread reads never holds the session's close. */
#define PACKETS_PER_WAKE 64

struct es_osc_listener {
    es_head *head;
    int fd;
    int wake[2];           /* a byte written to [1] stops the thread */
    pthread_t thread;
    char address[64];      /* as bound, numeric */
    unsigned char packet[PACKET_MAX];
};

/* `text` and `port` as a socket address, numbers only (no name is looked
 * up: a listener's address is typed, and a lookup could wait on the
 * network). */
static int numeric_address(const char *text, int port, struct addrinfo **out)
{
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    const struct addrinfo hints = {.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE,
                                   .ai_socktype = SOCK_DGRAM};
    return getaddrinfo(text, service, &hints, out) == 0 ? 0 : -1;
}

int es_head_osc_address_valid(const char *text, char *why, size_t n)
{
    struct addrinfo *ai = NULL;
    if (numeric_address(text, 1, &ai) != 0) {
        snprintf(why, n, "not an IPv4 or IPv6 address (127.0.0.1 or ::1: this machine "
                         "only; 0.0.0.0 or ::, every interface; or one of its addresses)");
        return 0;
    }
    freeaddrinfo(ai);
    return 1;
}

/* ADDRESS:PORT, an IPv6 address in brackets. */
static void host_port(char *out, size_t n, const char *address, int port)
{
    snprintf(out, n, strchr(address, ':') ? "[%s]:%d" : "%s:%d", address, port);
}

static int bound_socket(const struct addrinfo *ai, char *why, size_t n)
{
    const int fd = socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(why, n, "no socket: %s", strerror(errno));
        return -1;
    }
    const int on = 1, off = 0;
    /* :: hears IPv4 senders too, whatever the system's default. */
    if (ai->ai_family == AF_INET6)
        (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
#ifdef SO_RXQ_OVFL
    /* Where the system does not say its drops, they go uncounted. */
    (void)setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof on);
#endif
    /* The kernel's time of each packet's arrival: where motion-to-sound
     * starts (a busy thread may read it later). */
    (void)setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
        snprintf(why, n, "%s", strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* When the packet arrived, on es_now_ns's clock: `read` (when it was
 * read) less its age by the kernel's stamp (the real-time clock), where
 * the kernel gave one and it is sane. */
static long long arrived(const struct msghdr *msg, long long read)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    for (struct cmsghdr *c = CMSG_FIRSTHDR((struct msghdr *)msg); c;
         c = CMSG_NXTHDR((struct msghdr *)msg, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec ts;
            memcpy(&ts, CMSG_DATA(c), sizeof ts);
            const long long age = (now.tv_sec - ts.tv_sec) * 1000000000LL +
                                  (now.tv_nsec - ts.tv_nsec);
            return age >= 0 && age < 1000000000LL ? read - age : read;
        }
    return read;
}

/* The system's count of the packets it dropped, where it gave one. */
static void note_drops(es_osc_listener *l, struct msghdr *msg)
{
#ifdef SO_RXQ_OVFL
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
            uint32_t total;
            memcpy(&total, CMSG_DATA(c), sizeof total);
            es_head_osc_dropped(l->head, total);
        }
#else
    (void)l, (void)msg;
#endif
}

/* The packets waiting, up to PACKETS_PER_WAKE, each handed on as read. */
static void read_waiting(es_osc_listener *l)
{
    for (int k = 0; k < PACKETS_PER_WAKE; k++) {
        union {
            char bytes[CMSG_SPACE(sizeof(uint32_t)) + CMSG_SPACE(sizeof(struct timespec))];
            struct cmsghdr align;
        } control;
        struct iovec iov = {.iov_base = l->packet, .iov_len = sizeof l->packet};
        es_osc_peer from = {.len = sizeof from.addr};
        struct msghdr msg = {.msg_name = &from.addr, .msg_namelen = from.len,
                             .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.bytes,
                             .msg_controllen = sizeof control.bytes};
        const ssize_t got = recvmsg(l->fd, &msg, MSG_DONTWAIT);
        const long long arrival = es_now_ns();
        if (got < 0)
            return; /* none left (EAGAIN), or the next poll says again */
        note_drops(l, &msg);
        from.len = msg.msg_namelen;
        if (msg.msg_flags & MSG_TRUNC) {
            es_head_osc_packet_count(l->head, 1, 0, "a packet longer than 65,536 bytes");
            continue;
        }
        es_head_osc_packet(l->head, &from, l->packet, (size_t)got, arrived(&msg, arrival));
    }
}

/* Waits for a packet, the stop, or the next meters due (osc_control.h). */
static void *listen_thread(void *arg)
{
    es_osc_listener *l = arg;
    struct pollfd fds[2] = {{.fd = l->fd, .events = POLLIN}, {.fd = l->wake[0], .events = POLLIN}};
    for (;;) {
        const long long due = l->head->control ? es_osc_control_tick(l->head->control) : -1;
        const struct timespec wait = {.tv_sec = due / 1000000000LL,
                                      .tv_nsec = due % 1000000000LL};
        if (ppoll(fds, 2, due >= 0 ? &wait : NULL, NULL) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (fds[1].revents)
            break;
        if (fds[0].revents)
            read_waiting(l);
    }
    return NULL;
}

static void close_listener(es_osc_listener *l)
{
    if (l->fd >= 0)
        close(l->fd);
    for (int k = 0; k < 2; k++)
        if (l->wake[k] >= 0)
            close(l->wake[k]);
    free(l);
}

es_osc_listener *es_osc_listen(es_head *h, const char *address, int port, char *why, size_t n)
{
    char where[96], said[160];
    host_port(where, sizeof where, address, port);
    struct addrinfo *ai = NULL;
    if (numeric_address(address, port, &ai) != 0) {
        es_head_osc_address_valid(address, said, sizeof said);
        snprintf(why, n, "%s: %s", address, said);
        return NULL;
    }
    es_osc_listener *l = malloc(sizeof *l);
    if (!l) {
        freeaddrinfo(ai);
        snprintf(why, n, "out of memory");
        return NULL;
    }
    *l = (es_osc_listener){.head = h, .fd = -1, .wake = {-1, -1}};
    l->fd = bound_socket(ai, said, sizeof said);
    if (l->fd >= 0 && h->control)
        es_osc_control_set_socket(h->control, l->fd);
    if (l->fd >= 0 && getnameinfo(ai->ai_addr, ai->ai_addrlen, l->address, sizeof l->address,
                                  NULL, 0, NI_NUMERICHOST) != 0)
        snprintf(l->address, sizeof l->address, "%s", address);
    freeaddrinfo(ai);
    if (l->fd < 0) {
        snprintf(why, n, "cannot listen on UDP %s: %s", where, said);
        close_listener(l);
        return NULL;
    }
    int rc = pipe2(l->wake, O_CLOEXEC) != 0 ? errno : 0;
    if (!rc)
        rc = es_thread_start(&l->thread, "es-osc", listen_thread, l);
    if (rc) {
        snprintf(why, n, "UDP %s: the listener's thread did not start: %s", where, strerror(rc));
        close_listener(l);
        return NULL;
    }
    return l;
}

void es_osc_listener_stop(es_osc_listener *l)
{
    if (!l)
        return;
    const char stop = 1;
    while (write(l->wake[1], &stop, 1) < 0 && errno == EINTR)
        ;
    pthread_join(l->thread, NULL);
    close_listener(l);
}

int es_head_listen(es_head *h, const char *address, int port, char *why, size_t n)
{
    if (port < 1 || port > 65535) {
        snprintf(why, n, "OSC port %d: not within 1..65535", port);
        return -1;
    }
    pthread_mutex_lock(&h->lock);
    const int listening = h->osc != NULL;
    pthread_mutex_unlock(&h->lock);
    if (listening) {
        snprintf(why, n, "already listening for OSC");
        return -1;
    }
    es_osc_listener *l = es_osc_listen(h, address ? address : ES_HEAD_OSC_BIND_DEFAULT, port,
                                       why, n);
    if (!l)
        return -1;
    pthread_mutex_lock(&h->lock);
    h->osc = l;
    h->view.osc_port = port;
    snprintf(h->view.osc_address, sizeof h->view.osc_address, "%s", l->address);
    pthread_mutex_unlock(&h->lock);
    return 0;
}
