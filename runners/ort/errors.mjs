// The runner's log line and the errors a caller can cause. A MessageError becomes an `ok:false` reply and the
// runner keeps serving; any other exception is a bug (run.mjs logs it and exits 70).

export const log = (...a) => process.stderr.write(`rooflens-ort-runner[${process.pid}]: ${a.join(' ')}\n`);

export class MessageError extends Error {
  constructor(code, message, extra = {}) {
    super(message);
    this.code = code;
    this.extra = extra;
  }
}
export const badMessage = (text) => new MessageError('bad_message', text);
export const inputError = (text) => new MessageError('input', text);
export const ortError = (stage, e) => new MessageError('ort', e && e.message ? e.message : String(e), { stage });
