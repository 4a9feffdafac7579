/* FileCheck tests of the pass's polling (-tsr-poll; tests/sh/cas_pass.sh
 * compiles this at each level without it, checked against ALL, and with
 * it at maxagdiscard (POLL) and at none (POLLNONE)). Before every
 * innermost loop, never inside one: the module's countdown, and a call to
 * tsr_poll when it runs out. A poll does not keep a check from being
 * hoisted out of the loop around it. */

/* One loop: the check, then the countdown and the poll, before it. */
void fill(double *a, long n)
{
    for (long i = 0; i < n; i++)
        a[i] = (double)i;
}
// ALL-LABEL: define {{.*}} @fill(
// ALL-NOT: tsr_poll
// ALL: {{^}}}
// POLL-LABEL: define {{.*}} @fill(
// POLL: call void @tsr_range_write(
// POLL: load atomic i32, ptr @tsr.poll.countdown monotonic
// POLL: store atomic i32 {{.*}}, ptr @tsr.poll.countdown monotonic
// POLL: call void @tsr_poll()
// POLL: phi
// POLL-NOT: call
// POLL: {{^}}}
// POLLNONE-LABEL: define {{.*}} @fill(
// POLLNONE-NOT: tsr_range
// POLLNONE: load atomic i32, ptr @tsr.poll.countdown monotonic
// POLLNONE: call void @tsr_poll()
// POLLNONE: phi
// POLLNONE-NOT: call
// POLLNONE: {{^}}}

/* A nest: the check over the whole matrix before the outer loop, the
 * countdown and poll before each run of the inner loop, none in it. */
void scale(double *a, long n, long m)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < m; j++)
            a[i * m + j] *= 2;
}
// ALL-LABEL: define {{.*}} @scale(
// ALL-NOT: tsr_poll
// ALL: {{^}}}
// POLL-LABEL: define {{.*}} @scale(
// POLL: call void @tsr_range_write(
// POLL-NOT: call
// POLL: phi
// POLL: load atomic i32, ptr @tsr.poll.countdown monotonic
// POLL: call void @tsr_poll()
// POLL: phi
// POLL-NOT: call
// POLL: {{^}}}
// POLLNONE-LABEL: define {{.*}} @scale(
// POLLNONE-NOT: tsr_range
// POLLNONE: phi
// POLLNONE: load atomic i32, ptr @tsr.poll.countdown monotonic
// POLLNONE: call void @tsr_poll()
// POLLNONE: phi
// POLLNONE-NOT: call
// POLLNONE: {{^}}}
