// The little of Node.js that the partner guide's TypeScript example uses
// (no @types/node is installed): its environment and its exit code.
declare const process: { env: Record<string, string | undefined>; exitCode?: number };
