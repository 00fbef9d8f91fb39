// Swift concurrency on aviso's own threads: the runtime's global enqueue hooks hand every job to a small pool
// created here, and delayed jobs to a timer thread, so that libdispatch's worker pool (and its once-a-second monitor)
// never starts. Threads block on condition variables; with nothing to run, nothing wakes.
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include "CShims.h"

#define SWIFTCALL __attribute__((swiftcall))

// The runtime's hook variables and job entry point (swift/Runtime/Concurrency.h, swift/Runtime/ConcurrencyHooks.def).
typedef SWIFTCALL void (*aviso_enqueue_original)(void *job);
typedef SWIFTCALL void (*aviso_enqueue_delay_original)(unsigned long long delay, void *job);
typedef SWIFTCALL void (*aviso_enqueue_deadline_original)(long long sec, long long nsec, long long tsec, long long tnsec,
                                                          int clock, void *job);
extern void *swift_task_enqueueGlobal_hook;
extern void *swift_task_enqueueGlobalWithDelay_hook;
extern void *swift_task_enqueueGlobalWithDeadline_hook;
/// The generic executor is SerialExecutorRef::generic(): no identity, no implementation (two words, in registers).
typedef struct { const void *identity; uintptr_t implementation; } aviso_executor_ref;
extern SWIFTCALL void swift_job_run(void *job, aviso_executor_ref executor);

/// Swift's clock ids (swift_clock_id): continuous counts suspended time, suspending does not.
enum { aviso_clock_continuous = 1, aviso_clock_suspending = 2 };

typedef struct { void **items; size_t head, count, capacity; } aviso_fifo;
/// A delayed job, or (with `fn`) a callback the timer thread calls at the deadline.
typedef struct { int64_t deadline; uint64_t order; void *job; void (*fn)(void *); } aviso_timed;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready;    // a job to run
static pthread_cond_t changed;  // the earliest delayed job changed
static aviso_fifo runnable;
static aviso_timed *delayed;    // a binary min-heap by (deadline, order)
static size_t delayed_count, delayed_capacity;
static uint64_t delayed_order;

static int64_t monotonic_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void fifo_push(aviso_fifo *q, void *job) {
    if (q->count == q->capacity) {
        size_t capacity = q->capacity ? q->capacity * 2 : 256;
        void **items = malloc(capacity * sizeof *items);
        if (!items) abort();
        for (size_t i = 0; i < q->count; i++) items[i] = q->items[(q->head + i) % q->capacity];
        free(q->items);
        q->items = items;
        q->head = 0;
        q->capacity = capacity;
    }
    q->items[(q->head + q->count) % q->capacity] = job;
    q->count++;
}

static void *fifo_pop(aviso_fifo *q) {
    void *job = q->items[q->head];
    q->head = (q->head + 1) % q->capacity;
    q->count--;
    return job;
}

static int earlier(const aviso_timed *a, const aviso_timed *b) {
    return a->deadline < b->deadline || (a->deadline == b->deadline && a->order < b->order);
}

static void heap_push(aviso_timed t) {
    if (delayed_count == delayed_capacity) {
        delayed_capacity = delayed_capacity ? delayed_capacity * 2 : 64;
        delayed = realloc(delayed, delayed_capacity * sizeof *delayed);
        if (!delayed) abort();
    }
    size_t i = delayed_count++;
    delayed[i] = t;
    while (i > 0 && earlier(&delayed[i], &delayed[(i - 1) / 2])) {
        aviso_timed parent = delayed[(i - 1) / 2];
        delayed[(i - 1) / 2] = delayed[i];
        delayed[i] = parent;
        i = (i - 1) / 2;
    }
}

static aviso_timed heap_pop(void) {
    aviso_timed top = delayed[0];
    delayed[0] = delayed[--delayed_count];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < delayed_count && earlier(&delayed[l], &delayed[m])) m = l;
        if (r < delayed_count && earlier(&delayed[r], &delayed[m])) m = r;
        if (m == i) break;
        aviso_timed t = delayed[m];
        delayed[m] = delayed[i];
        delayed[i] = t;
        i = m;
    }
    return top;
}

static void *worker(void *unused) {
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&lock);
        while (runnable.count == 0) pthread_cond_wait(&ready, &lock);
        void *job = fifo_pop(&runnable);
        pthread_mutex_unlock(&lock);
        aviso_executor_ref generic = { 0, 0 };
        swift_job_run(job, generic);
    }
    return NULL;
}

/// Moves delayed jobs to the run queue when they are due; sleeps until the earliest one.
static void *timer(void *unused) {
    (void)unused;
    pthread_mutex_lock(&lock);
    for (;;) {
        if (delayed_count == 0) {
            pthread_cond_wait(&changed, &lock);
            continue;
        }
        int64_t now = monotonic_now();
        if (delayed[0].deadline > now) {
            struct timespec until = { delayed[0].deadline / 1000000000, delayed[0].deadline % 1000000000 };
            pthread_cond_timedwait(&changed, &lock, &until);
            continue;
        }
        while (delayed_count > 0 && delayed[0].deadline <= now) {
            aviso_timed due = heap_pop();
            if (due.fn) {
                // Callbacks (a sleeping task's wake-up) run here, outside the lock: they only enqueue.
                pthread_mutex_unlock(&lock);
                due.fn(due.job);
                pthread_mutex_lock(&lock);
                continue;
            }
            fifo_push(&runnable, due.job);
            pthread_cond_signal(&ready);
        }
    }
    return NULL;
}

static void enqueue(void *job) {
    pthread_mutex_lock(&lock);
    fifo_push(&runnable, job);
    pthread_cond_signal(&ready);
    pthread_mutex_unlock(&lock);
}

static void enqueue_at(int64_t deadline, void *job, void (*fn)(void *)) {
    pthread_mutex_lock(&lock);
    int earliest = delayed_count == 0 || deadline < delayed[0].deadline;
    heap_push((aviso_timed){ deadline, delayed_order++, job, fn });
    if (earliest) pthread_cond_signal(&changed);
    pthread_mutex_unlock(&lock);
}

static SWIFTCALL void hook_enqueue(void *job, aviso_enqueue_original original) {
    (void)original;
    enqueue(job);
}

static SWIFTCALL void hook_enqueue_delay(unsigned long long delay, void *job, aviso_enqueue_delay_original original) {
    (void)original;
    int64_t now = monotonic_now();
    enqueue_at(delay > (unsigned long long)(INT64_MAX - now) ? INT64_MAX : now + (int64_t)delay, job, NULL);
}

static SWIFTCALL void hook_enqueue_deadline(long long sec, long long nsec, long long tsec, long long tnsec, int clock,
                                            void *job, aviso_enqueue_deadline_original original) {
    (void)tsec, (void)tnsec, (void)original;
    // The deadline is on Swift's clock (continuous: CLOCK_BOOTTIME); the timer thread waits on CLOCK_MONOTONIC.
    struct timespec ts;
    clock_gettime(clock == aviso_clock_continuous ? CLOCK_BOOTTIME : CLOCK_MONOTONIC, &ts);
    long double left = ((long double)sec - ts.tv_sec) * 1e9L + ((long double)nsec - ts.tv_nsec);
    int64_t now = monotonic_now();
    if (left <= 0) return enqueue(job);
    enqueue_at(left >= (long double)(INT64_MAX - now) ? INT64_MAX : now + (int64_t)left, job, NULL);
}

static pthread_once_t timer_once = PTHREAD_ONCE_INIT;
static int timer_started;

/// The condition variables and the timer thread, once, whichever needs them first.
static void start_timer(void) {
    pthread_condattr_t monotonic;
    pthread_condattr_init(&monotonic);
    pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
    pthread_cond_init(&changed, &monotonic);
    pthread_cond_init(&ready, NULL);
    pthread_condattr_destroy(&monotonic);
    pthread_t thread;
    if (pthread_create(&thread, NULL, timer, NULL) != 0) return;
    pthread_setname_np(thread, "aviso-delays");
    pthread_detach(thread);
    timer_started = 1;
}

void aviso_executor_after(long long delay, void (*fn)(void *), void *context) {
    pthread_once(&timer_once, start_timer);
    if (!timer_started) abort();
    int64_t now = monotonic_now();
    enqueue_at(delay <= 0 ? now : delay > INT64_MAX - now ? INT64_MAX : now + delay, context, fn);
}

int aviso_executor_install(int workers) {
    pthread_once(&timer_once, start_timer);
    if (!timer_started) return -1;
    pthread_t thread;
    for (int i = 0; i < workers; i++) {
        if (pthread_create(&thread, NULL, worker, NULL) != 0) return -1;
        char name[16] = "aviso-tasks-0";
        name[12] = (char)('0' + i % 10);
        pthread_setname_np(thread, name);
        pthread_detach(thread);
    }
    swift_task_enqueueGlobal_hook = (void *)hook_enqueue;
    swift_task_enqueueGlobalWithDelay_hook = (void *)hook_enqueue_delay;
    swift_task_enqueueGlobalWithDeadline_hook = (void *)hook_enqueue_deadline;
    return 0;
}
