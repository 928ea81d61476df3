/** Types of ingest/build.mjs (plain JavaScript, so that `node ingest/build.mjs` and the `svc` command run it without tsx). */
export declare const DIST: string;
export declare function build(): Promise<void>;
/** `src` and `dist` default to ingest/src and ingest/dist (a test passes its own). */
export declare function compiled(name: 'main' | 'cli' | 'new-data-dir.child', dirs?: { src?: string; dist?: string }): string | null;
