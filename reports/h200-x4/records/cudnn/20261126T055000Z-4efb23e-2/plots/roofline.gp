# roofline.gp: rendered by attnlab-report from run.json of run cudnn/20261126T055000Z-4efb23e-2.
# Edits are overwritten on the next render; to restyle, copy this file. Render it
# from this directory with: gnuplot roofline.gp (reads roofline.dat, writes roofline.png)
set terminal pngcairo size 900,500 enhanced font 'DejaVu Sans,10'
set output 'roofline.png'
bw = 4814.304  # [GB/s] provenance.gpu.peak_dram_gbps of the record
tensor = 989.4  # [TFLOPS] fp16 dense tensor peak: no source given; the record's derived.tensor_peak_tflops
dram(x) = bw * x / 1000.0  # [TFLOPS] at x FLOP/byte
roof(x, peak) = dram(x) < peak ? dram(x) : peak
set title 'Roofline: phase cudnn, run 20261126T055000Z-4efb23e-2' noenhanced
set logscale xy
set xrange [10:10000]
set yrange [10:10000]
set xlabel 'arithmetic intensity [FLOP/byte], FLOPs / minimum bytes (Q, K, V read once, O written once)' noenhanced
set ylabel 'TFLOPS'
set format x '10^{%L}'
set format y '10^{%L}'
set grid xtics ytics mxtics mytics lc rgb '#d0d0d0', lc rgb '#ececec'
set key top left Left reverse noenhanced box opaque
set samples 2000
plot roof(x, tensor) with lines lw 2 lc rgb '#1f77b4' title sprintf('DRAM %.0f GB/s (record), fp16 tensor peak %.1f TFLOPS', bw, tensor), \
     'roofline.dat' using 2:3 with points pt 7 ps 1.6 lc rgb '#d62728' title 'this run, headline regime; x: minimum bytes', \
     '' using 2:3:1 with labels left offset 1.2,0.6 font ',9' noenhanced notitle
