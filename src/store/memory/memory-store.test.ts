import { describeStoreContract } from '../store-contract.js';
import { memoryStore } from './memory-store.js';

describeStoreContract('memory', async () => ({ store: memoryStore() }));
