/*
 * omp.h - the OpenMP routines Tessera's OpenMP runtime provides
 * (libtessera_omp.a, which tsrcc -fopenmp links; docs/OPENMP.md). A routine
 * not declared here is not provided: a program calling one fails to
 * compile, naming it.
 */
#ifndef TSR_OMP_H
#define TSR_OMP_H

#ifdef __cplusplus
extern "C" {
#endif

/* A lock: its Tessera lock id, set by omp_init_lock. */
typedef struct omp_lock_t {
    void *_lk;
} omp_lock_t;

int omp_get_thread_num(void);
int omp_get_num_threads(void);
int omp_get_max_threads(void);
int omp_get_num_procs(void);
int omp_in_parallel(void);
int omp_get_level(void);
int omp_get_dynamic(void);
int omp_get_nested(void);
void omp_set_num_threads(int n);
double omp_get_wtime(void);
double omp_get_wtick(void);

void omp_init_lock(omp_lock_t *lock);
void omp_destroy_lock(omp_lock_t *lock);
void omp_set_lock(omp_lock_t *lock);
void omp_unset_lock(omp_lock_t *lock);
int omp_test_lock(omp_lock_t *lock);

/* A nestable lock: its id, the thread holding it and how many times. */
typedef struct omp_nest_lock_t {
    void *_lk;
    int _holder, _depth;
} omp_nest_lock_t;

void omp_init_nest_lock(omp_nest_lock_t *lock);
void omp_destroy_nest_lock(omp_nest_lock_t *lock);
void omp_set_nest_lock(omp_nest_lock_t *lock);
void omp_unset_nest_lock(omp_nest_lock_t *lock);
int omp_test_nest_lock(omp_nest_lock_t *lock);

#ifdef __cplusplus
}
#endif

#endif
