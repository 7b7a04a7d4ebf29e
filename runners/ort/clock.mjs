// The runner's clock: process.hrtime.bigint() is CLOCK_MONOTONIC, the clock rooflens shares (serve.mjs sends its
// readings back as they are).
export const nowNs = () => process.hrtime.bigint();
export const nsToMs = (ns) => Number(ns) / 1e6;
