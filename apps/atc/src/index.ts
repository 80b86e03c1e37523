// @tsge/atc: the atc command as a function (the bin is main.ts).
export { main, type CliIo } from './cli.js';
