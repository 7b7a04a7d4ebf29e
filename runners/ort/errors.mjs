// The runner's log line and the errors a caller can cause. A RequestError becomes an `ok:false` response and the
// runner keeps serving; any other exception is a bug (run.mjs logs it and exits 70).

export const log = (...a) => process.stderr.write(`rooflens-ort-runner[${process.pid}]: ${a.join(' ')}\n`);

export class RequestError extends Error {
  constructor(code, message, extra = {}) {
    super(message);
    this.code = code;
    this.extra = extra;
  }
}
export const badRequest = (msg) => new RequestError('bad_request', msg);
export const inputError = (msg) => new RequestError('input', msg);
export const ortError = (stage, e) => new RequestError('ort', e && e.message ? e.message : String(e), { stage });
