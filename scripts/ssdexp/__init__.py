"""ssdsim's experiment layer: sweeps on Dask (sweep), figures (plot), and the papers'
experiments reproduced (reproduce)."""
