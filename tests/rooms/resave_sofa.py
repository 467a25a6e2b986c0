#!/usr/bin/python3
"""Writes a SOFA file again (netCDF4) as other tools store the same set:
every attribute, dimension and value kept, one thing changed.

  resave_sofa.py IN OUT HOW

HOW:
  deflate          Data.IR deflated (level 5) without the shuffle filter,
                   as `nccopy -d5` stores it: valid netCDF-4, which
                   libmysofa 1.3 misreads (it un-shuffles it all the same)
  deflate-shuffle  deflated after the shuffle filter, as libmysofa reads it
  float            Data.IR stored as 32-bit floats
  all-float        every variable stored as 32-bit floats
  rates-equal      Data.SamplingRate one a measurement (M), all the same
  rates-differ     the same, the last measurement's 44100 Hz"""
import sys

import netCDF4
import numpy as np

src, dst, how = sys.argv[1:4]
a = netCDF4.Dataset(src)
b = netCDF4.Dataset(dst, "w", format="NETCDF4")
b.setncatts({k: a.getncattr(k) for k in a.ncattrs()})
for k, d in a.dimensions.items():
    b.createDimension(k, len(d))
M = len(a.dimensions["M"])
for k, v in a.variables.items():
    dtype, dims, extra, data = v.dtype, v.dimensions, {}, v[:]
    if k == "Data.IR" and how == "deflate":
        extra = dict(zlib=True, complevel=5, shuffle=False)
    if k == "Data.IR" and how == "deflate-shuffle":
        extra = dict(zlib=True, complevel=5, shuffle=True)
    if (k == "Data.IR" and how == "float") or how == "all-float":
        dtype = "f4"
    if k == "Data.SamplingRate" and how.startswith("rates-"):
        dims, data = ("M",), np.full(M, float(data[0]))
        if how == "rates-differ":
            data[M - 1] = 44100.0
    w = b.createVariable(k, dtype, dims, **extra)
    w.setncatts({x: v.getncattr(x) for x in v.ncattrs()})
    w[:] = data
b.close()
