// SPDX-License-Identifier: MIT
//
// Drives tb's clock until it finishes (or a cycle limit says it hangs);
// exit 0 when it counted no error.
#include <cstdio>
#include <memory>

#include "Vtb.h"
#include "Vtb__Dpi.h"
#include "verilated.h"

// sim.h's prototypes with the handle a chandle is: the compiler rejects any
// that differs from what Verilator made of sim.svh's imports.
#define ROCE_SIM_HANDLE void *
#include "roce/sim.h"

int main(int argc, char **argv)
{
	const unsigned long max_cycles = 2000000;
	auto ctx = std::make_unique<VerilatedContext>();
	ctx->commandArgs(argc, argv);
	auto top = std::make_unique<Vtb>(ctx.get());
	unsigned long cycle;

	top->rst = 1;
	for (cycle = 0; cycle < max_cycles && !top->finished && !ctx->gotFinish(); cycle++) {
		if (cycle == 4)
			top->rst = 0;
		top->clk = 0;
		top->eval();
		top->clk = 1;
		top->eval();
	}
	top->final();
	if (!top->finished) {
		std::fprintf(stderr, "cosim: no end after %lu cycles\n", cycle);
		return 1;
	}
	std::printf("cosim: %s after %lu cycles\n", top->errors ? "FAIL" : "PASS", cycle);
	return top->errors ? 1 : 0;
}
