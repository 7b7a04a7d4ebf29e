import * as ort from 'onnxruntime-node';
import v8 from 'node:v8'; import fs from 'node:fs';
const gc = globalThis.gc;
const s = await ort.InferenceSession.create('/tmp/d/llama_kv.onnx', {enableCpuMemArena:false, enableMemPattern:false, intraOpNumThreads:2});
const L=30,H=3,D=64,B=1; const P=1024;
const st=()=>{const t=fs.readFileSync('/proc/self/status','utf8'); return {rss:+t.match(/VmRSS:\s+(\d+)/)[1]/1024, hwm:+t.match(/VmHWM:\s+(\d+)/)[1]/1024};};
const reset=()=>fs.writeFileSync('/proc/self/clear_refs','5');
const dance=async()=>{gc(); await new Promise(r=>setImmediate(r)); gc();};
function feeds(past, presents){
  const f={input_ids:new ort.Tensor('int64', new BigInt64Array(B).fill(1n),[B,1]),
    attention_mask:new ort.Tensor('int64', new BigInt64Array(B*(past+1)).fill(1n),[B,past+1]),
    position_ids:new ort.Tensor('int64', new BigInt64Array(B).fill(BigInt(past)),[B,1])};
  for (let l=0;l<L;l++) for (const kv of ['key','value']) f[`past_key_values.${l}.${kv}`]= presents? presents[`present.${l}.${kv}`] : new ort.Tensor('float32', new Float32Array(B*H*past*D),[B,H,past,D]);
  return f;
}
const kvMB = 2*L*H*D*4*P*B/1048576;
let presents=null;
{ const ids=new ort.Tensor('int64', new BigInt64Array(B*P).fill(1n),[B,P]);
  const f={input_ids:ids, attention_mask:new ort.Tensor('int64', new BigInt64Array(B*P).fill(1n),[B,P]), position_ids:new ort.Tensor('int64', BigInt64Array.from({length:P},(_, i)=>BigInt(i)),[B,P])};
  for (let l=0;l<L;l++) for (const kv of ['key','value']) f[`past_key_values.${l}.${kv}`]=new ort.Tensor('float32', new Float32Array(0),[B,H,0,D]);
  const a=st(); reset();
  const out = await s.run(f);
  const b=st();
  presents={}; for (const n of Object.keys(out)) if (n.startsWith('present')) presents[n]=out[n];
  console.log(`prefill: rss before ${a.rss.toFixed(1)} hwm ${b.hwm.toFixed(1)} after ${b.rss.toFixed(1)}`);
}

for (let k=0;k<4;k++){
  await dance();
  let f = feeds(P+k, presents);
  presents=null;
  const a=st(); reset(); const e0=v8.getHeapStatistics().external_memory;
  const out = await s.run(f);
  const b=st();
  presents={}; for (const n of Object.keys(out)) if (n.startsWith('present')) presents[n]=out[n];
  console.log(`step ${k}: rss before ${a.rss.toFixed(1)} hwm during ${b.hwm.toFixed(1)} (+${(b.hwm-a.rss).toFixed(1)}) rss after ${b.rss.toFixed(1)} ext +${((v8.getHeapStatistics().external_memory-e0)/1048576).toFixed(1)} kv ${kvMB.toFixed(1)} MB`);
  f=null;
}
