export declare const parts: Record<'lib' | 'ui', { output: string; sources: string[] }>;
export declare function newest(path: string): number;
export declare function isStale(part: 'lib' | 'ui', base?: string): boolean;
