import express, { type RequestHandler } from 'express';
import { badRequest } from './errors.js';

export const BODY_LIMIT = '100kb';

const parseJson = express.json({ limit: BODY_LIMIT, strict: true });

/** JSON bodies only: a body sent with another Content-Type is refused instead of silently ignored. */
export const jsonBody: RequestHandler = (req, res, next) => {
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (hasBody && !req.is('application/json')) {
    throw badRequest('Request bodies must be JSON, sent with Content-Type: application/json');
  }
  parseJson(req, res, next);
};
