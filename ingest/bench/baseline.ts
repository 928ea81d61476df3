import express from 'express';

/**
 * The benchmark's baseline: a bare Express 5 app answering a JSON POST with an echo, on the
 * same machine, so that every figure can be read as a ratio that survives a noisy host.
 */
const app = express();
app.use(express.json({ type: ['application/json', 'text/plain'] }));
app.post('/echo', (req, res) => {
  res.json({ success: true, data: req.body });
});
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : ''}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
