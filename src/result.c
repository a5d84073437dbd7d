/*
 * result — one run's measurements and their JSON form (runs/NNNNN.json).
 */
#include "result.h"

#include <stdlib.h>

const double iom_percentiles[IOM_NPCT] = {
	1, 5, 10, 25, 50, 75, 90, 95, 99,
	99.9, 99.99, 99.999, 99.9999, 99.99999, 99.999999, 99.9999999,
};

void iom_run_result_release(struct iom_run_result *r)
{
	if (!r)
		return;
	free(r->error);
	free(r->intervals);
	free(r->threads);
	free(r->cpu.per_cpu);
	free(r->cpu.irq_drivers);
	free(r->engine_notes);
	r->error = NULL;
	r->intervals = NULL;
	r->threads = NULL;
	r->cpu.per_cpu = NULL;
	r->cpu.irq_drivers = NULL;
	r->engine_notes = NULL;
}
